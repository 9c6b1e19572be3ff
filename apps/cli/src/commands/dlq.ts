import type { Command } from 'commander';
import type { DlqStats, ReplayBatchResult } from '@cronsvc/contracts';
import { REPLAY_BATCH_MAX } from '@cronsvc/contracts';
import type { CronsvcClient } from '@cronsvc/client';
import { UsageError } from '../errors.js';
import { fetchPages, pageNote } from '../options.js';
import { dlqTable } from '../output/executions-view.js';
import { details, table } from '../output/table.js';
import { relativeTime } from '../output/time.js';
import { executionQuery, withExecutionFilters, type ExecutionFilterFlags } from './executions.js';
import { done, example, withContext } from './shared.js';

const statsText = (stats: DlqStats) =>
  [
    details([
      ['Total', String(stats.total)],
      ['Oldest', stats.oldest_dead_lettered_at ? relativeTime(stats.oldest_dead_lettered_at) : '-'],
    ]),
    '',
    table(stats.by_job, [
      { header: 'JOB', value: (j) => j.job_id },
      { header: 'NAME', value: (j) => j.job_name, max: 40 },
      { header: 'COUNT', value: (j) => String(j.count) },
    ]),
    '',
    table(Object.entries(stats.by_error_class), [
      { header: 'ERROR CLASS', value: ([name]) => name },
      { header: 'COUNT', value: ([, count]) => String(count) },
    ]),
  ].join('\n');

/**
 * Replays what the DLQ holds when the command starts (of one job, with `jobId`), 100 ids per
 * request. The ids are listed first, so replays that fail again while this runs, and land in
 * the DLQ themselves, are not replayed in turn.
 */
async function replayEverything(client: CronsvcClient, jobId?: string): Promise<ReplayBatchResult> {
  if (jobId) await client.jobs.get(jobId);
  const listed = await fetchPages((q) => client.dlq.list({ ...q, sort: 'created_at', order: 'asc' }), { all: true });
  const ids = listed.data.filter((e) => !jobId || e.job_id === jobId).map((e) => e.id);
  const total: ReplayBatchResult = { replayed: [], failed: [] };
  for (let i = 0; i < ids.length; i += REPLAY_BATCH_MAX) {
    const batch = await client.dlq.replayBatch({ ids: ids.slice(i, i + REPLAY_BATCH_MAX) });
    total.replayed.push(...batch.replayed);
    total.failed.push(...batch.failed);
  }
  return total;
}

const batchText = (result: ReplayBatchResult) =>
  [`${result.replayed.length} replayed, ${result.failed.length} failed`, ...result.replayed.map((r) => `  ${r.id} -> ${r.execution_id}`), ...result.failed.map((f) => `  ${f.id}: ${f.error}`)].join('\n');

export function registerDlq(program: Command): void {
  const dlq = program.command('dlq').description('the dead-letter queue: executions that failed for good');
  example(dlq, 'cronsvc dlq stats', 'cronsvc dlq replay --job job_123');

  const list = withExecutionFilters(dlq.command('list').description('list dead-lettered executions')).action(
    withContext(async ({ client, out }, flags: ExecutionFilterFlags) => {
      const page = await fetchPages((q) => client.dlq.list(executionQuery(flags, q)), flags);
      out.result(page, (p) => dlqTable(out.paint, p) + pageNote(p));
    }),
  );
  example(list, 'cronsvc dlq list --job-name nightly');

  example(
    dlq
      .command('stats')
      .description('how many, the oldest, by job and by error class')
      .action(withContext(async ({ client, out }) => out.result(await client.dlq.stats(), statsText))),
    'cronsvc dlq stats',
  );

  const replay = dlq
    .command('replay [id]')
    .description('replay one item (a new execution, source dlq_replay), a job\'s items, or all of them')
    .option('--job <id>', 'every DLQ item of this job')
    .option('--all', 'every DLQ item of the workspace')
    .action(
      withContext(async ({ client, out }, id: string | undefined, flags: { job?: string; all?: boolean }) => {
        const chosen = [id !== undefined, flags.job !== undefined, Boolean(flags.all)].filter(Boolean).length;
        if (chosen !== 1) throw new UsageError('give one of: an id, --job ID, --all');
        if (id) return out.result(await client.dlq.replay(id), (e) => `${id} -> ${e.id} (${e.status})`);
        out.result(await replayEverything(client, flags.job), batchText);
      }),
    );
  example(replay, 'cronsvc dlq replay exe_123', 'cronsvc dlq replay --job job_123', 'cronsvc dlq replay --all');

  example(
    dlq
      .command('delete <id>')
      .description('take one item out of the DLQ (the execution stays)')
      .action(withContext(async ({ client, out }, id: string) => out.result(await client.dlq.delete(id), done(`removed ${id} from the DLQ`)))),
    'cronsvc dlq delete exe_123',
  );

  const purge = dlq
    .command('purge')
    .description('take every matching item out of the DLQ (all of them without filters); executions stay')
    .option('--job <id>', 'only this job\'s items')
    .option('--before <iso>', 'only items dead-lettered before this time (ISO 8601 with Z or an offset)')
    .action(
      withContext(async ({ client, out }, flags: { job?: string; before?: string }) =>
        out.result(await client.dlq.purge({ job_id: flags.job, before: flags.before }), (r) => `purged ${r.purged}`),
      ),
    );
  example(purge, 'cronsvc dlq purge --before 2026-11-01T00:00:00Z');
}
