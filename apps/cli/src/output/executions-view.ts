import type { Attempt, Execution, ListEnvelope } from '@cronsvc/contracts';
import { paintStatus, type Paint } from './color.js';
import { details, table } from './table.js';
import { duration, relativeTime } from './time.js';

const PREVIEW_LINES = 3;
const PREVIEW_WIDTH = 100;

export const executionsTable = (paint: Paint, page: ListEnvelope<Execution>) =>
  table(page.data, [
    { header: 'ID', value: (e) => e.id },
    { header: 'JOB', value: (e) => e.job_name, max: 30 },
    { header: 'STATUS', value: (e) => paintStatus(paint, e.status) },
    { header: 'SOURCE', value: (e) => e.source },
    { header: 'ATTEMPTS', value: (e) => String(e.attempt_count) },
    { header: 'SCHEDULED', value: (e) => relativeTime(e.scheduled_for ?? e.created_at) },
    { header: 'DURATION', value: (e) => duration(e.duration_ms) },
    { header: 'ERROR', value: (e) => e.error_class ?? '', max: 30 },
  ]);

export const dlqTable = (paint: Paint, page: ListEnvelope<Execution>) =>
  table(page.data, [
    { header: 'ID', value: (e) => e.id },
    { header: 'JOB', value: (e) => e.job_name, max: 30 },
    { header: 'ERROR', value: (e) => paint(e.error_class ?? '-', 'red') },
    { header: 'ATTEMPTS', value: (e) => String(e.attempt_count) },
    { header: 'DEAD-LETTERED', value: (e) => relativeTime(e.dead_lettered_at) },
    { header: 'MESSAGE', value: (e) => e.error_message ?? '', max: 50 },
  ]);

/** The first lines of a body preview, each cut to a screen's width. */
function previewLines(preview: string | null | undefined): string[] {
  if (!preview) return [];
  const lines = preview.split(/\r?\n/).filter((l) => l.trim() !== '');
  const shown = lines.slice(0, PREVIEW_LINES).map((l) => (l.length > PREVIEW_WIDTH ? `${l.slice(0, PREVIEW_WIDTH - 1)}…` : l));
  if (lines.length > PREVIEW_LINES) shown.push(`… ${lines.length - PREVIEW_LINES} more line(s)`);
  return shown;
}

/** One attempt per entry: number, outcome, status code, latency, error class, then its preview. */
export function attemptTimeline(paint: Paint, attempts: Attempt[], indent = '  '): string[] {
  const lines: string[] = [];
  for (const attempt of attempts) {
    const head = [
      paint(`#${attempt.number}`, 'bold'),
      paintStatus(paint, attempt.status),
      attempt.statusCode === null ? '-' : String(attempt.statusCode),
      duration(attempt.latencyMs),
      attempt.errorClass ?? '',
      attempt.startedAt ? paint(relativeTime(attempt.startedAt), 'gray') : '',
    ].filter(Boolean);
    lines.push(`${indent}${head.join('  ')}`);
    if (attempt.errorMessage) lines.push(`${indent}   ${paint('error:', 'red')} ${attempt.errorMessage}`);
    for (const line of previewLines(attempt.bodyPreview)) lines.push(`${indent}   ${paint('│', 'gray')} ${line}`);
  }
  return lines;
}

export function executionDetails(paint: Paint, execution: Execution): string {
  const head = details([
    ['ID', execution.id],
    ['Job', `${execution.job_name} (${execution.job_id})`],
    ['Status', paintStatus(paint, execution.status) + (execution.waiting_reason ? ` (${execution.waiting_reason})` : '')],
    ['Source', execution.source + (execution.replay_of_id ? ` of ${execution.replay_of_id}` : '')],
    ['Scheduled', execution.scheduled_for ? `${execution.scheduled_for} (${relativeTime(execution.scheduled_for)})` : undefined],
    ['Started', execution.started_at ? relativeTime(execution.started_at) : undefined],
    ['Finished', execution.finished_at ? relativeTime(execution.finished_at) : undefined],
    ['Duration', execution.duration_ms === null ? undefined : duration(execution.duration_ms)],
    ['Error', execution.error_class ? `${execution.error_class}${execution.error_message ? `: ${execution.error_message}` : ''}` : undefined],
    ['Dead-lettered', execution.dead_lettered_at ? relativeTime(execution.dead_lettered_at) : undefined],
  ]);
  const lines = [head, ''];
  if (execution.step_executions?.length) {
    lines.push('Steps');
    for (const step of execution.step_executions) {
      lines.push(`  ${paint(`[${step.step_index}]`, 'bold')} ${step.step_id} (${step.type})  ${paintStatus(paint, step.status)}${step.error_class ? `  ${step.error_class}` : ''}`);
      lines.push(...attemptTimeline(paint, step.attempts, '      '));
    }
  } else {
    lines.push(`Attempts (${execution.attempts?.length ?? execution.attempt_count})`);
    lines.push(...(execution.attempts?.length ? attemptTimeline(paint, execution.attempts) : ['  none yet']));
  }
  return lines.join('\n');
}
