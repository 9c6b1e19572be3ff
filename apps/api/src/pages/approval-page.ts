import type { Approval } from '@cronsvc/contracts';

/**
 * The approval review page and the pages that answer a decision (docs/WORKFLOWS.md, "Approvals"): plain
 * HTML, no script, forms that post to the approve and reject endpoints, readable on a phone.
 * Everything that comes from a job, a run or a sender is HTML-escaped.
 */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** Served with every page: no scripts or framing, forms only to this origin, no token leaking through Referer, nothing cached. */
export const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
};

const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2129; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  .card { background: #fff; border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); margin-bottom: 1rem; }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
  h2 { font-size: 1rem; margin: 0 0 .5rem; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
  .muted { color: #57606a; font-size: .9rem; }
  .message { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1.1rem; margin: 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .75rem; margin: 0; }
  dt { color: #57606a; } dd { margin: 0; overflow-wrap: anywhere; }
  ol { margin: 0; padding-left: 1.25rem; } li { margin: .25rem 0; overflow-wrap: anywhere; }
  .badge { display: inline-block; padding: .1rem .5rem; border-radius: 999px; font-size: .85rem; background: #eaeef2; }
  .badge.succeeded, .badge.approved { background: #dafbe1; color: #116329; }
  .badge.failed, .badge.rejected, .badge.expired { background: #ffebe9; color: #a40e26; }
  form { margin: 0; }
  label { display: block; margin-bottom: .25rem; color: #57606a; }
  textarea { width: 100%; min-height: 4.5rem; font: inherit; padding: .5rem; border: 1px solid #d0d7de; border-radius: 8px; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: .75rem; }
  button { flex: 1 1 10rem; min-height: 3rem; font: inherit; font-weight: 600; border: 0; border-radius: 8px; cursor: pointer; }
  .approve { background: #1f883d; color: #fff; } .reject { background: #cf222e; color: #fff; }
  .result { font-size: 1.25rem; font-weight: 600; margin: 0 0 .5rem; }`;

/** A public page in this style (the approval pages, the snooze link's page): `body` is HTML, escaped by the caller. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

const when = (iso: string | null) => (iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>` : 'none');

function previousSteps(view: Approval): string {
  if (view.previous_steps.length === 0) return '<p class="muted">This is the first step of the run.</p>';
  const items = view.previous_steps.map((s) => {
    const code = s.status_code === null ? '' : ` <span class="muted">HTTP ${s.status_code}</span>`;
    return `<li><strong>${escapeHtml(s.step_id)}</strong> <span class="muted">(${escapeHtml(s.type)})</span> <span class="badge ${escapeHtml(s.status)}">${escapeHtml(s.status)}</span>${code}</li>`;
  });
  return `<ol>${items.join('')}</ol>`;
}

function header(view: Approval): string {
  return `<div class="card">
<h2>Approval requested</h2>
<h1>${escapeHtml(view.job.name)}</h1>
<p class="muted">Step <strong>${escapeHtml(view.step_id)}</strong> (step ${view.step_index + 1}) of run <code>${escapeHtml(view.execution_id)}</code></p>
</div>`;
}

/**
 * The review page: the job, the step's message, what ran before, and the two decisions while it
 * is pending. `notice` explains a decision that was not taken (it came after another).
 */
export function renderApprovalPage(view: Approval, actions: { approve: string; reject: string }, notice?: string): string {
  const decided = view.status !== 'pending';
  const decision = decided
    ? `<div class="card">${notice ? `<p class="result">${escapeHtml(notice)}</p>` : ''}<p class="result">This approval is <span class="badge ${view.status}">${view.status}</span></p>
<p class="muted">Decided ${when(view.decided_at)}. A decision cannot be changed.</p></div>`
    : `<div class="card">
<form method="post" action="${escapeHtml(actions.approve)}">
<label for="comment">Comment (optional)</label>
<textarea id="comment" name="comment" maxlength="2000"></textarea>
<div class="actions">
<button class="approve" type="submit">Approve</button>
<button class="reject" type="submit" formaction="${escapeHtml(actions.reject)}">Reject</button>
</div>
</form>
<p class="muted">Expires ${when(view.expires_at)}.</p>
</div>`;
  return page(`Approval: ${view.job.name}`, `${header(view)}
<div class="card"><h2>Message</h2><p class="message">${escapeHtml(view.message)}</p></div>
${decision}
<div class="card"><h2>What ran before</h2>${previousSteps(view)}
<dl style="margin-top:.75rem"><dt>Requested</dt><dd>${when(view.requested_at)}</dd><dt>Run status</dt><dd>${escapeHtml(view.execution_status)}</dd></dl></div>`);
}

/** The answer to a decision made from the page. */
export function renderDecisionPage(view: Approval, reviewPath: string): string {
  const verb = view.status === 'approved' ? 'Approved' : 'Rejected';
  const next = view.status === 'approved' ? 'The run continues with its next step.' : 'The run stops here and is marked failed.';
  return page(`${verb}: ${view.job.name}`, `${header(view)}
<div class="card"><p class="result">${verb} <span class="badge ${view.status}">${view.status}</span></p><p>${next}</p>
<p><a href="${escapeHtml(reviewPath)}">Back to the approval</a></p></div>`);
}

/** An approval link that does not work (unknown token) or a decision that came too late. */
export function renderProblemPage(title: string, detail: string): string {
  return page(title, `<div class="card"><p class="result">${escapeHtml(title)}</p><p>${escapeHtml(detail)}</p></div>`);
}
