import type { Db, Prisma } from '../db/client.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { storedValueBytes } from '../secrets/crypto.js';
import { jobSecretBytesProblem } from '../secrets/secret-value.js';
import { stepTemplateProblems } from '../templates/step-template.js';
import { findReferences, unknownVariableProblems, type Reference } from '../templates/template.js';
import type { JobInput } from './job-schema.js';

/** What a job's placeholders say without the database: unknown variables, and the secrets it uses (each at its path). */
export interface JobReferences {
  problems: ErrorDetail[];
  secrets: { path: string; name: string }[];
}

type Referencing = Pick<JobInput, 'kind' | 'request' | 'steps'>;

export function jobReferences(job: Referencing): JobReferences {
  const problems: ErrorDetail[] = [];
  const references: Reference[] = [];
  if (job.request) {
    references.push(...findReferences(job.request));
    problems.push(...unknownVariableProblems(references));
  }
  if (job.steps) {
    const found = stepTemplateProblems(job.steps, job.kind);
    problems.push(...found.problems);
    references.push(...found.secrets.map((s) => ({ path: s.path, placeholder: `{{secret.${s.name}}}`, variable: { kind: 'secret' as const, name: s.name } })));
  }
  const secrets = references.flatMap((r) => (r.variable?.kind === 'secret' ? [{ path: r.path, name: r.variable.name }] : []));
  return { problems, secrets };
}

/** The stored size of each named secret that exists in the workspace: one query for any number of jobs. */
export async function secretSizes(db: Db | Prisma.TransactionClient, workspaceId: string, names: Iterable<string>): Promise<Map<string, number>> {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return new Map();
  const rows = await db.secret.findMany({ where: { workspaceId, name: { in: wanted } }, select: { name: true, value: true } });
  return new Map(rows.map((r) => [r.name, storedValueBytes(r.value)]));
}

/** The problems of a job's references once the workspace's secrets are known: each missing secret, and too many bytes of them. */
export function referenceProblems(found: JobReferences, sizes: Map<string, number>): ErrorDetail[] {
  const problems = [...found.problems];
  problems.push(...found.secrets.filter((u) => !sizes.has(u.name)).map((u) => ({ path: u.path, message: `secret "${u.name}" does not exist in this workspace` })));
  const used = new Map(found.secrets.flatMap((u) => (sizes.has(u.name) ? [[u.name, sizes.get(u.name) as number] as const] : [])));
  const tooMuch = jobSecretBytesProblem(used);
  if (tooMuch) problems.push({ path: 'request', message: tooMuch });
  return problems;
}

/**
 * Save-time checks of a job's placeholders (docs/JOBS.md, "Variables and secrets"; docs/WORKFLOWS.md for steps): every
 * one names a known variable (for steps also `context` and, in webhook_trigger jobs, `trigger`)
 * and every secret exists in the workspace. Every problem is reported at once, each at its exact
 * path. (That a URL is still an http(s) URL once rendered is the job schema's url rule, run
 * on placeholderSafeUrl(url).)
 */
export async function checkJobReferences(db: Db | Prisma.TransactionClient, workspaceId: string, job: Referencing): Promise<void> {
  const found = jobReferences(job);
  const sizes = await secretSizes(db, workspaceId, found.secrets.map((s) => s.name));
  const problems = referenceProblems(found, sizes);
  if (problems.length > 0) throw AppError.validation(problems);
}
