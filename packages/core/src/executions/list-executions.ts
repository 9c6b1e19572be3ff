import { EXECUTION_SORTS, EXECUTION_STATUSES, type ExecutionSort, type ExecutionStatus } from '@cronsvc/contracts';
import Joi from 'joi';
import type { AttemptRow, ExecutionRow, Prisma } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { pagingKeys, type Page } from '../lists/paging.js';
import { validate } from '../validation/validate.js';
import type { StepExecutionRow } from './serialize-execution.js';
import { countExecutions } from './count-executions.js';


export const querySchema = Joi.object({
  status: Joi.string().valid(...EXECUTION_STATUSES),
  from: Joi.date().iso(),
  to: Joi.date().iso(),
  job_name: Joi.string().max(200),
  sort: Joi.string().valid(...EXECUTION_SORTS).default('scheduled_for'),
  order: Joi.string().valid('asc', 'desc').default('desc'),
  ...pagingKeys,
});

interface ExecutionQuery {
  status?: ExecutionStatus;
  from?: Date;
  to?: Date;
  job_name?: string;
  sort: ExecutionSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export type ExecutionWithAttempts = ExecutionRow & { attempts: AttemptRow[] };
/** A list item: its attempts come without bodyPreview and request (up to 64 KiB each), which GET /v1/executions/:id has. */
export type ListedAttempt = Omit<AttemptRow, 'bodyPreview' | 'request'>;

/**
 * The columns a list never reads: what a sender or a target decides the size of (the trigger
 * input, the final response and output) and the run's working state (its copy of the steps, its
 * context and variables). Postgres keeps large values out of line, and a page that does not
 * select them never reads them (docs/API.md, "Lists").
 */
const UNLISTED = { triggerInput: true, finalResponse: true, finalOutput: true, steps: true, context: true, variables: true } as const;
export type ListedExecution = Omit<ExecutionRow, keyof typeof UNLISTED> & { attempts: ListedAttempt[] };

/**
 * job_name is a literal, case-insensitive substring: LIKE's wildcards (% and _) and its escape
 * character are escaped, so "%" finds names containing "%" and not every name. ILIKE with
 * escapes still uses the trigram index on job_name.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Executions of a workspace (or of one job), filtered and paged as docs/API.md ("Conventions") says.
 * `scope` narrows the set further (the dead-letter queue is this listing scoped to dead_lettered_at).
 */
export async function listExecutions(
  deps: Pick<Deps, 'db'>,
  workspaceId: string,
  query: unknown,
  jobId?: string,
  scope: Prisma.ExecutionWhereInput = {},
): Promise<Page<ListedExecution>> {
  const q = validate<ExecutionQuery>(querySchema.prefs({ convert: true }), query);
  if (q.from && q.to && q.from > q.to) throw AppError.validation([{ path: 'from', message: 'must not be after to' }]);
  const field = q.sort === 'created_at' ? 'createdAt' : 'scheduledFor';
  const where: Prisma.ExecutionWhereInput = {
    workspaceId,
    ...(jobId ? { jobId } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.job_name ? { jobName: { contains: likeLiteral(q.job_name), mode: 'insensitive' } } : {}),
    ...(q.from || q.to ? { [field]: { ...(q.from ? { gte: q.from } : {}), ...(q.to ? { lte: q.to } : {}) } } : {}),
    ...scope,
  };
  const [data, total] = await Promise.all([
    deps.db.execution.findMany({
      where,
      orderBy: [{ [field]: q.order }, { id: q.order }],
      take: q.limit,
      skip: q.offset,
      omit: UNLISTED,
      include: { attempts: { orderBy: { number: 'asc' }, omit: { bodyPreview: true, request: true } } },
    }),
    // The workspace counters answer a status filter; one job's executions (bounded by retention),
    // a time range, a name or a scope are counted.
    jobId || q.from || q.to || q.job_name || Object.keys(scope).length > 0
      ? deps.db.execution.count({ where })
      : countExecutions(deps.db, { workspaceId, status: q.status }),
  ]);
  return { data, total, limit: q.limit, offset: q.offset };
}

/** One execution with its attempts and, for a step-driven run, its step executions and their attempts. */
export async function getExecution(deps: Pick<Deps, 'db'>, workspaceId: string, id: string): Promise<ExecutionWithAttempts & { stepExecutions: StepExecutionRow[] }> {
  const execution = await deps.db.execution.findFirst({
    where: { id, workspaceId },
    include: { attempts: { orderBy: { number: 'asc' } }, stepExecutions: { orderBy: { stepIndex: 'asc' }, include: { attempts: true } } },
  });
  if (!execution) throw AppError.notFound('execution');
  return execution;
}
