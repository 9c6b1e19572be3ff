import type { Fire, ImportResult, Job, JobStats, ListEnvelope } from '@cronsvc/contracts';
import { duration } from './time.js';
import { paintStatus, type Paint } from './color.js';
import { details, table } from './table.js';
import { relativeTime } from './time.js';

export function scheduleText(job: Job): string {
  if (job.kind === 'recurring') return `every ${job.schedule?.every_n_minutes}m`;
  if (job.kind === 'scheduled') return `at ${job.schedule?.run_at}`;
  if (job.kind === 'one_time') return 'once';
  if (job.kind === 'webhook_trigger') return job.schedule?.cron ? `cron ${job.schedule.cron}, webhook` : 'webhook';
  return `cron ${job.schedule?.cron}`;
}

export const jobsTable = (paint: Paint, page: ListEnvelope<Job>) =>
  table(page.data, [
    { header: 'ID', value: (j) => j.id },
    { header: 'NAME', value: (j) => j.name, max: 40 },
    { header: 'KIND', value: (j) => j.kind },
    { header: 'SCHEDULE', value: scheduleText, max: 40 },
    { header: 'STATE', value: (j) => paintStatus(paint, j.state) },
    { header: 'NEXT RUN', value: (j) => relativeTime(j.next_run_at) },
    { header: 'TAGS', value: (j) => (j.tags ?? []).join(','), max: 40 },
  ]);

export function jobDetails(paint: Paint, job: Job): string {
  const request = job.request;
  const headers = request ? Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ') : '';
  return details([
    ['ID', job.id],
    ['Key', job.key ?? undefined],
    ['Name', job.name],
    ['Kind', job.kind],
    ['State', paintStatus(paint, job.state)],
    ['Schedule', scheduleText(job)],
    ['Next run', job.next_run_at ? `${job.next_run_at} (${relativeTime(job.next_run_at)})` : '-'],
    ['Request', request ? `${request.method} ${request.url}` : undefined],
    ['Headers', headers],
    ['Body', request?.body === undefined || request.body === null ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body)],
    ['Timeout', request ? `${request.timeout_seconds} s` : undefined],
    ['Steps', job.steps ? job.steps.map((s) => `${s.id} (${s.type})`).join(', ') : undefined],
    ['Max attempts', String(job.retry_policy.max_attempts)],
    ['Fire policies', job.overlap_policy ? `overlap ${job.overlap_policy}, catch-up ${job.catch_up_policy}, jitter ${job.jitter_seconds} s` : undefined],
    ['Tags', job.tags?.length ? job.tags.join(', ') : undefined],
    ['Trigger URL', job.trigger_url],
    ['Created', `${job.created_at} (${relativeTime(job.created_at)})`],
    ['Updated', `${job.updated_at} (${relativeTime(job.updated_at)})`],
  ]);
}

const ms = (value: number | null) => (value === null ? '-' : duration(value));

/** A job's statistics: the totals, then one line per bucket that had executions. */
export function statsView(paint: Paint, stats: JobStats): string {
  const rate = stats.success_rate === null ? '-' : `${(stats.success_rate * 100).toFixed(1)}%`;
  const head = details([
    ['Window', stats.window],
    ['Executions', `${stats.executions} (${stats.succeeded} succeeded, ${stats.failed} failed)`],
    ['Success rate', stats.success_rate === null ? rate : paint(rate, stats.failed === 0 ? 'green' : 'yellow')],
    ['Duration', `p50 ${ms(stats.duration_ms.p50)}, p95 ${ms(stats.duration_ms.p95)}, p99 ${ms(stats.duration_ms.p99)}`],
  ]);
  const busy = stats.buckets.filter((b) => b.executions > 0);
  if (busy.length === 0) return head;
  const buckets = table(busy, [
    { header: 'FROM', value: (b) => b.start },
    { header: 'RUNS', value: (b) => String(b.executions) },
    { header: 'FAILED', value: (b) => (b.failed === 0 ? '0' : paint(String(b.failed), 'red')) },
    { header: 'P50', value: (b) => ms(b.p50_ms) },
    { header: 'P95', value: (b) => ms(b.p95_ms) },
  ]);
  return `${head}

${buckets}`;
}

/** A job's fire ledger, newest slot first. */
export const firesTable = (paint: Paint, page: ListEnvelope<Fire>) =>
  table(page.data, [
    { header: 'SCHEDULED FOR', value: (f) => f.scheduled_for },
    { header: 'OUTCOME', value: (f) => paintStatus(paint, f.outcome) },
    { header: 'LAG', value: (f) => (f.lag_ms === null ? '' : duration(f.lag_ms)) },
    { header: 'EXECUTION', value: (f) => f.execution_id ?? '' },
    { header: 'REASON', value: (f) => f.reason ?? '' },
  ]);

export function importSummary(paint: Paint, result: ImportResult): string {
  const lines = [`${result.created.length} job(s) created, ${result.errors.length} line(s) refused`];
  for (const job of result.created) lines.push(`  ${paint('+', 'green')} ${job.id}  ${job.name}`);
  for (const error of result.errors) lines.push(`  ${paint('!', 'red')} line ${error.line}: ${error.message}`);
  for (const note of result.notes ?? []) lines.push(`${paint('note:', 'yellow')} ${note}`);
  return lines.join('\n');
}
