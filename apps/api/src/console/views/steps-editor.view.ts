import { DEFAULT_SUCCESS_STATUSES, HTTP_METHODS, STEP_TYPES } from '@cronsvc/contracts';
import { html, type Html } from '../html.js';
import type { FieldErrors } from '../form-parsing.js';
import {
  addStepId, listFingerprint, MAX_FORM_STEPS, ON_TIMEOUT, rowFields, STEP_ACTION, stepControlId, stepField, STEPS_JSON_BASE, STEPS_LIST_BASE,
  type StepRow, type StepsEditor,
} from '../step-form.js';
import { field, type FieldSpec } from './fields.js';

/** The element the list's actions replace (with script) or the page scrolls back to (without). */
export const STEPS_EDITOR_ID = 'steps-editor';
export const STEPS_LIST_ERROR_ID = 'steps-list-error';

const TIMEOUT_HINT: Record<string, string> = {
  http: '1 to 300; default 30.',
  wait_for_webhook: '1 to 7200; empty: until the run’s deadline.',
  approval: '1 to 7200; empty: until the run’s deadline.',
};
const ON_TIMEOUT_HINT: Record<string, string> = {
  wait_for_webhook: 'fail ends the run with WAIT_TIMEOUT; continue goes on to the next step.',
  approval: 'reject fails the run with APPROVAL_EXPIRED; approve goes on as if approved.',
};

/** A step field's label and control, by field; some depend on the step's type. */
function stepSpec(fieldName: string, type: string): Omit<FieldSpec, 'name'> {
  switch (fieldName) {
    case 'id': return { label: 'ID', hint: '1 to 64 letters, digits, _ or -; names the step in records and URLs.' };
    case 'type': return { label: 'Type', type: 'select', options: STEP_TYPES };
    case 'url': return { label: 'URL', type: 'url', placeholder: 'https://example.com/build', hint: 'May use {{context.KEY}}, {{trigger.body.FIELD}}, {{secret.NAME}}, {{uuid}}, ...' };
    case 'method': return { label: 'Method', type: 'select', options: HTTP_METHODS };
    case 'headers': return { label: 'Headers', type: 'textarea', placeholder: 'Authorization: Bearer {{secret.API_KEY}}', hint: 'One a line, Name: value.' };
    case 'body_template': return { label: 'Body template', type: 'textarea', hint: 'JSON is sent as JSON; other text as it is; empty sends no body. Placeholders render in every string.' };
    case 'timeout_seconds': return { label: 'Timeout (seconds)', type: 'number', hint: TIMEOUT_HINT[type] };
    case 'success_statuses': return { label: 'Success statuses', hint: 'Separated by commas; default 200, 201, 202, 204.' };
    case 'success_pattern': return { label: 'Success pattern', hint: 'A regular expression the body must match (optional).' };
    case 'failure_pattern': return { label: 'Failure pattern', hint: 'A body that matches it fails (optional).' };
    case 'pattern_flags': return { label: 'Pattern flags', placeholder: 'i' };
    case 'response_assertions': return { label: 'Response assertions', type: 'textarea', placeholder: '{"json": [{"path": "$.ok", "op": "eq", "value": true}]}', hint: 'JSON (optional).' };
    case 'message': return { label: 'Message', type: 'textarea', hint: 'What approvers read; 1 to 4000 characters, no secrets.' };
    case 'on_timeout': return { label: 'On timeout', type: 'select', options: ON_TIMEOUT[type], hint: ON_TIMEOUT_HINT[type] };
    case 'extract': return { label: 'Extract', type: 'textarea', placeholder: 'order_id: $.id', hint: 'One a line, key: $.path, into the run’s context ({{context.key}}).' };
    default: return { label: 'Extract to context', type: 'textarea', placeholder: 'cursor: $.next', hint: 'One a line, key: $.path, into the job’s context store, kept across runs.' };
  }
}

const DEFAULT_STATUSES = DEFAULT_SUCCESS_STATUSES.join(', ');

/** Fields an http step shows only when "More options" is opened (or holds a value or a problem). */
const MORE = new Set(['success_statuses', 'success_pattern', 'failure_pattern', 'pattern_flags', 'response_assertions', 'extract_to_context']);

export const stepLabel = (index: number, fieldName: string, type: string) => `Step ${index + 1} ${stepSpec(fieldName, type).label}`;

interface EditorContext {
  /** Where the list's buttons post: the form's own action. */
  action: string;
  errors: FieldErrors;
  focus: string | null;
}

/** Attributes of a list control: with htmx, it posts the form and swaps the editor in place (inherited target). */
const enhanced = (ctx: EditorContext, id: string) => html`hx-post="${ctx.action}"${ctx.focus === id ? html` autofocus` : ''}`;

function actionButton(ctx: EditorContext, id: string, value: string, label: string, hidden: string, disabled = false): Html {
  return html`<button type="submit" class="small" id="${id}" name="${STEP_ACTION}" value="${value}" ${enhanced(ctx, id)}${disabled ? html` disabled` : ''}>${label}${hidden ? html`<span class="visually-hidden"> ${hidden}</span>` : ''}</button>`;
}

function stepRow(ctx: EditorContext, row: StepRow, index: number, count: number): Html {
  const type = row.type ?? '';
  const fields = rowFields(type);
  const n = index + 1;
  const control = (name: string) => {
    const id = stepControlId(index, name);
    const spec = stepSpec(name, type);
    const typeSwitch = name === 'type' ? html` hx-trigger="change" hx-vals='{"${STEP_ACTION}": "type:${index}"}'` : '';
    const attributes = html`${name === 'type' ? enhanced(ctx, id) : ctx.focus === id ? html`autofocus` : ''}${typeSwitch}`;
    return field({ ...spec, name: stepField(index, name), id, labelContext: `Step ${n}`, attributes }, row[name], ctx.errors[stepField(index, name)]);
  };
  // Problems of the step itself, and of fields its type does not show (JSON typed by hand).
  const own = [...(ctx.errors[`steps[${index}]`] ?? []), ...Object.entries(ctx.errors)
    .filter(([key]) => key.startsWith(`steps[${index}].`) && !fields.includes(key.slice(`steps[${index}].`.length)))
    .flatMap(([, messages]) => messages)];
  const main = fields.filter((f) => f !== 'id' && f !== 'type' && !(type === 'http' && MORE.has(f)));
  const more = type === 'http' ? fields.filter((f) => MORE.has(f)) : [];
  // Open when it holds something of the person's: a problem, or a value other than the API's default.
  const moreOpen = more.some((f) => ctx.errors[stepField(index, f)] || ((row[f] ?? '') !== '' && !(f === 'success_statuses' && row[f] === DEFAULT_STATUSES)));
  return html`<li>
<fieldset class="step" id="step-${index}">
<legend>Step ${n}</legend>
<div class="actions step-actions">
${actionButton(ctx, stepControlId(index, 'up'), `up:${index}`, 'Move up', `step ${n}`, index === 0)}
${actionButton(ctx, stepControlId(index, 'down'), `down:${index}`, 'Move down', `step ${n}`, index === count - 1)}
${actionButton(ctx, stepControlId(index, 'remove'), `remove:${index}`, 'Remove', `step ${n}`)}
</div>
${own.length ? html`<p class="field-error" id="step-${index}-error">${own.join('; ')}</p>` : ''}
<div class="grid">${control('id')}<div>${control('type')}<noscript><button type="submit" class="small" name="${STEP_ACTION}" value="type:${index}">Show the fields of this type<span class="visually-hidden"> (step ${n})</span></button></noscript></div></div>
${main.map(control)}
${more.length ? html`<details class="more"${moreOpen ? html` open` : ''}><summary>More options<span class="visually-hidden"> of step ${n}</span></summary>${more.map(control)}</details>` : ''}
</fieldset>
</li>`;
}

/**
 * The steps of a step-driven job: a list with per-type fields, buttons to add, remove and move
 * steps (they post the form and come back with the list changed, nothing saved; htmx swaps the
 * list in place), and the same steps as JSON, labelled "Steps", for those who would rather type it.
 */
export function stepsEditor(editor: StepsEditor, errors: FieldErrors, action: string): Html {
  const ctx: EditorContext = { action, errors, focus: editor.focus };
  const { rows } = editor;
  const listErrors = editor.jsonOpen ? [] : (errors.steps ?? []);
  const adds = STEP_TYPES.map((type) => actionButton(ctx, addStepId(type), `add:${type}`, `Add ${type} step`, ''));
  const json = field(
    { name: 'steps', label: 'Steps', type: 'textarea', tall: true, placeholder: '[{"id": "build", "type": "http", "url": "https://example.com/build"}]', hint: 'The same steps as a JSON array (http, wait_for_webhook, approval). Change this or the list above: a changed JSON replaces the list when saved.' },
    editor.json,
    editor.jsonOpen ? errors.steps : undefined,
  );
  return html`<div id="${STEPS_EDITOR_ID}" class="steps-editor" hx-target="this" hx-select="#${STEPS_EDITOR_ID}" hx-swap="outerHTML">
<input type="hidden" name="${STEPS_JSON_BASE}" value="${editor.jsonBase}">
<input type="hidden" name="${STEPS_LIST_BASE}" value="${listFingerprint(rows)}">
${listErrors.length ? html`<p class="field-error" id="${STEPS_LIST_ERROR_ID}">${listErrors.join('; ')}</p>` : ''}
${rows.length ? html`<ol class="step-list">${rows.map((row, i) => stepRow(ctx, row, i, rows.length))}</ol>` : html`<p class="muted">No steps yet: add one, or write them as JSON below.</p>`}
${rows.length < MAX_FORM_STEPS ? html`<div class="actions">${adds}</div>` : html`<p class="muted">A job has at most ${MAX_FORM_STEPS} steps.</p>`}
<details class="steps-json"${editor.jsonOpen ? html` open` : ''}><summary>Steps as JSON</summary>${json}</details>
</div>`;
}
