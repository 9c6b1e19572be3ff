import type { Job } from '@cronsvc/contracts';
import cronstrue from 'cronstrue';
import { html, type Html } from './html.js';

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/** A time as the console shows every time: UTC, to the second ("2026-11-24 17:05:12 UTC"). */
export function utc(value: Date | string): string {
  return `${asDate(value).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** How far from now, in the largest unit that reads well ("in 4 min", "3 h ago", "just now"). */
export function relative(value: Date | string, now: Date): string {
  const ms = asDate(value).getTime() - now.getTime();
  const abs = Math.abs(ms);
  if (abs < 45_000) return ms >= 0 ? 'in a few seconds' : 'just now';
  let amount: string;
  if (abs < 90 * 60_000) amount = `${Math.round(abs / 60_000)} min`;
  else if (abs < 36 * 3_600_000) amount = `${Math.round(abs / 3_600_000)} h`;
  else {
    const days = Math.round(abs / 86_400_000);
    amount = `${days} ${days === 1 ? 'day' : 'days'}`;
  }
  return ms >= 0 ? `in ${amount}` : `${amount} ago`;
}

/** A time in UTC with its relative hint, machine-readable in `datetime`; a dash for none. */
export function when(value: Date | string | null | undefined, now: Date): Html {
  if (value === null || value === undefined) return html`<span class="muted">none</span>`;
  const date = asDate(value);
  return html`<time datetime="${date.toISOString()}">${utc(date)}</time> <span class="rel">(${relative(date, now)})</span>`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A cron expression in words, evaluated in UTC ("At 09:00, Monday through Friday (UTC)"). */
export function cronInWords(expression: string): string {
  try {
    return `${cronstrue.toString(expression, { use24HourTimeFormat: true })} (UTC)`;
  } catch {
    return expression;
  }
}

/** When a job runs, in words, from its kind and schedule. */
export function scheduleInWords(job: Pick<Job, 'kind' | 'schedule'>): string {
  const schedule = job.schedule ?? {};
  switch (job.kind) {
    case 'recurring':
      return schedule.every_n_minutes === 1 ? 'Every minute' : `Every ${schedule.every_n_minutes} minutes`;
    case 'cron':
    case 'workflow':
      return cronInWords(schedule.cron ?? '');
    case 'scheduled':
      return schedule.run_at ? `Once, at ${utc(schedule.run_at)}` : 'Once';
    case 'one_time':
      return 'Once, when created';
    case 'webhook_trigger':
      return 'When its trigger URL is called';
  }
}
