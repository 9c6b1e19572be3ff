import type { Command } from 'commander';
import type { Execution, ExecutionListQuery, ListEnvelope, PageQuery } from '@cronsvc/contracts';
import { EXECUTION_SORTS, EXECUTION_STATUSES } from '@cronsvc/contracts';
import type { CronsvcClient } from '@cronsvc/client';
import { fetchPages, pageNote, withPaging, type PageFlags } from '../options.js';
import { executionDetails, executionsTable } from '../output/executions-view.js';
import { watch } from '../watch.js';
import { example, withContext } from './shared.js';

export type ExecutionFilterFlags = PageFlags & Omit<ExecutionListQuery, 'limit' | 'offset' | 'job_name'> & { jobName?: string };

/** The query parameters of GET /v1/executions, also taken by the DLQ list. */
export const withExecutionFilters = (command: Command): Command =>
  withPaging(command)
    .option('--status <status>', `only this status (${EXECUTION_STATUSES.join(', ')})`)
    .option('--from <iso>', 'from this time (ISO 8601), on the sort field')
    .option('--to <iso>', 'up to this time (ISO 8601)')
    .option('--job-name <text>', 'job name contains this text (case-insensitive)')
    .option('--sort <field>', `sort by ${EXECUTION_SORTS.join(' or ')}`)
    .option('--order <order>', 'asc or desc (default desc)');

export const executionQuery = (flags: ExecutionFilterFlags, page: PageQuery): ExecutionListQuery => ({
  ...page,
  status: flags.status,
  from: flags.from,
  to: flags.to,
  job_name: flags.jobName,
  sort: flags.sort,
  order: flags.order,
});

type ListFlags = ExecutionFilterFlags & { job?: string; watch?: boolean };

function lister(client: CronsvcClient, flags: ListFlags): () => Promise<ListEnvelope<Execution>> {
  const fetchPage = (page: PageQuery) => {
    const query = executionQuery(flags, page);
    return flags.job ? client.jobs.executions(flags.job, query) : client.executions.list(query);
  };
  return () => fetchPages(fetchPage, flags);
}

export function registerExecutions(program: Command): void {
  const executions = program.command('executions').description('runs of jobs: list, inspect, replay, park, resume');
  example(executions, 'cronsvc executions list --status failed', 'cronsvc executions get exe_123');

  const list = withExecutionFilters(executions.command('list').description('list executions, newest first'))
    .option('--job <id>', 'only the executions of this job')
    .option('--watch', 'redraw every 2 seconds until Ctrl-C')
    .action(
      withContext(async ({ client, out }, flags: ListFlags) => {
        const load = lister(client, flags);
        const render = (page: ListEnvelope<Execution>) => executionsTable(out.paint, page) + pageNote(page);
        if (flags.watch) return watch(load, (page) => (out.json ? JSON.stringify(page, null, 2) : render(page)));
        out.result(await load(), render);
      }),
    );
  example(list, 'cronsvc executions list --status failed --from 2026-11-01T00:00:00Z', 'cronsvc executions list --job job_123 --watch');

  example(
    executions
      .command('get <id>')
      .description('one execution, with its attempts as a timeline')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.executions.get(id), (e) => executionDetails(out.paint, e)))),
    'cronsvc executions get exe_123',
  );
  example(
    executions
      .command('replay <id>')
      .description('run the job again as a new execution (source replay); the original is unchanged')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.executions.replay(id), (e) => `${e.id} ${e.status} (replay of ${id})`))),
    'cronsvc executions replay exe_123',
  );
  example(
    executions
      .command('park <id>')
      .description('hold a queued or running execution (status waiting) until resumed')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.executions.park(id), (e) => `${e.id} ${e.status}${e.waiting_reason ? ` (${e.waiting_reason})` : ' (parks after the attempt in flight)'}`))),
    'cronsvc executions park exe_123',
  );
  example(
    executions
      .command('resume <id>')
      .description('go on with a parked execution (or one waiting for a webhook)')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.executions.resume(id), (e) => `${e.id} ${e.status}`))),
    'cronsvc executions resume exe_123',
  );
}
