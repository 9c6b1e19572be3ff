import type { Fire, FireOutcome } from '@cronsvc/contracts';
import { duration, utc } from '../format.js';
import { html, type Html } from '../html.js';
import { paths } from '../paths.js';

/** Outcomes as people read them. */
const LABELS: Record<FireOutcome, string> = {
  pending: 'pending',
  fired: 'fired',
  late: 'late',
  caught_up: 'caught up',
  missed: 'missed',
  skipped: 'skipped',
};

/** What one fire adds to its outcome: how late, how long it has waited, or why it was skipped. */
function note(fire: Fire, now: Date): string {
  if (fire.outcome === 'late' && fire.lag_ms !== null) return `${duration(fire.lag_ms)} late`;
  if (fire.outcome === 'pending') {
    const waited = now.getTime() - Date.parse(fire.due_at);
    return waited > 0 ? `due ${duration(waited)} ago` : `due ${utc(fire.due_at)}`;
  }
  if (fire.outcome === 'skipped' && fire.reason) return fire.reason;
  if (fire.outcome === 'missed') return fire.execution_id ? 'covered by the catch-up' : 'not run';
  return '';
}

function cell(fire: Fire, now: Date): Html {
  const label = LABELS[fire.outcome];
  const mark = fire.execution_id ? html`<a href="${paths.execution(fire.execution_id)}">${label}</a>` : html`<span>${label}</span>`;
  const extra = note(fire, now);
  return html`<li class="fire f-${fire.outcome}">${mark}<span class="fire-time">${utc(fire.scheduled_for)}</span>${extra ? html`<span class="fire-note">${extra}</span>` : ''}</li>`;
}

/**
 * A job's recent fires (the fire ledger), oldest first: each with its outcome, its slot's time and,
 * when it had one, a link to its execution; a sentence sums them up.
 */
export function fireStrip(fires: Fire[], now: Date): Html {
  if (fires.length === 0) return html`<p class="muted">No expected fire yet: fires appear here from the job's first slot on.</p>`;
  const counts = (Object.keys(LABELS) as FireOutcome[])
    .map((outcome) => [LABELS[outcome], fires.filter((f) => f.outcome === outcome).length] as const)
    .filter(([, n]) => n > 0);
  const summary = `Last ${fires.length} expected fires: ${counts.map(([label, n]) => `${n} ${label}`).join(', ')}.`;
  return html`<p>${summary}</p><ol class="fire-strip" aria-label="Recent fires, oldest first">${[...fires].reverse().map((f) => cell(f, now))}</ol>`;
}
