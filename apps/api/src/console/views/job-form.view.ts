import { CATCH_UP_POLICIES, HTTP_METHODS, JOB_KINDS, JOB_STATES, NOTIFICATION_OVERRIDES, OVERLAP_POLICIES, REQUEST_KINDS, SCHEDULED_KINDS, STEP_KINDS } from '@cronsvc/contracts';
import { html, type Html } from '../html.js';
import type { FieldErrors, FormValues } from '../form-parsing.js';
import { rowFields, stepControlId, type StepsEditor } from '../step-form.js';
import { errorSummary, field, fieldId, type FieldSpec } from './fields.js';
import { csrfField, type ViewContext } from './layout.js';
import { stepLabel, stepsEditor, STEPS_EDITOR_ID } from './steps-editor.view.js';

const REQUEST = REQUEST_KINDS;
const STEPS = STEP_KINDS;

// Labelled in words after the API's fields (docs/CONSOLE.md lists them).
const F = {
  name: { name: 'name', label: 'Name', required: true },
  kind: { name: 'kind', label: 'Kind', type: 'select', options: JOB_KINDS, hint: 'recurring: every N minutes; cron: a cron expression; scheduled: once at a time; one_time: once, now; workflow: steps on a cron schedule; webhook_trigger: steps when its URL is called.' },
  state: { name: 'state', label: 'State', type: 'select', options: JOB_STATES, hint: 'A draft is saved but does not run.' },
  every_n_minutes: { name: 'every_n_minutes', label: 'Every N minutes', type: 'number', kinds: ['recurring'], hint: '1 to 1440; counted from when the job is created or resumed.' },
  cron: { name: 'cron', label: 'Cron', kinds: ['cron', 'workflow'], placeholder: '*/15 * * * *', hint: 'Five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, ...; always UTC.' },
  run_at: { name: 'run_at', label: 'Run at', kinds: ['scheduled'], placeholder: '2030-01-01T09:00:00Z', hint: 'ISO 8601, in the future; UTC unless it names an offset.' },
  url: { name: 'url', label: 'URL', type: 'url', kinds: REQUEST, placeholder: 'https://example.com/task', hint: 'May use {{timestamp}}, {{uuid}}, {{execution_id}}, {{secret.NAME}}.' },
  method: { name: 'method', label: 'Method', type: 'select', options: HTTP_METHODS, kinds: REQUEST },
  headers: { name: 'headers', label: 'Headers', type: 'textarea', kinds: REQUEST, placeholder: 'Authorization: Bearer {{secret.API_KEY}}', hint: 'One a line, Name: value.' },
  body: { name: 'body', label: 'Body', type: 'textarea', kinds: REQUEST, hint: 'JSON is sent as JSON; other text as it is; empty sends no body.' },
  timeout_seconds: { name: 'timeout_seconds', label: 'Timeout (seconds)', type: 'number', kinds: REQUEST, hint: '1 to 300; default 30.' },
  success_statuses: { name: 'success_statuses', label: 'Success statuses', kinds: REQUEST, hint: 'Status codes that count as success, separated by commas.' },
  success_pattern: { name: 'success_pattern', label: 'Success pattern', kinds: REQUEST, hint: 'A regular expression the body must match to succeed (optional).' },
  failure_pattern: { name: 'failure_pattern', label: 'Failure pattern', kinds: REQUEST, hint: 'A body that matches it fails, whatever the status (optional).' },
  pattern_flags: { name: 'pattern_flags', label: 'Pattern flags', kinds: REQUEST, placeholder: 'i', hint: 'Regular expression flags for both patterns, such as i.' },
  response_assertions: { name: 'response_assertions', label: 'Response assertions', type: 'textarea', kinds: REQUEST, placeholder: '{"json": [{"path": "$.ok", "op": "eq", "value": true}]}', hint: 'JSON (optional): status, json, text and headers checks that must all pass.' },
  response_output_template: { name: 'response_output_template', label: 'Response output template', type: 'textarea', kinds: REQUEST, placeholder: '{"id": "$.id"}', hint: 'JSON (optional): strings starting with $ are JSONPath into the response.' },
  max_workflow_duration_seconds: { name: 'max_workflow_duration_seconds', label: 'Max workflow duration (seconds)', type: 'number', kinds: STEPS, hint: '1 to 7200; default 1800, waits included.' },
  webhook_secret: { name: 'webhook_secret', label: 'Webhook secret', type: 'password', kinds: ['webhook_trigger'], hint: 'Callers send it as X-Webhook-Secret (optional).' },
  max_attempts: { name: 'max_attempts', label: 'Max attempts', type: 'number', hint: '1 to 10, the first included; default 3.' },
  retry_on_statuses: { name: 'retry_on_statuses', label: 'Retry on statuses', hint: 'Status codes that are tried again, separated by commas. Timeouts and connection errors always are.' },
  overlap_policy: { name: 'overlap_policy', label: 'Overlap policy', type: 'select', options: OVERLAP_POLICIES, kinds: SCHEDULED_KINDS, hint: 'When a fire is due while Max concurrent executions already run: queue waits for a free place; skip records the fire skipped and does not run it.' },
  catch_up_policy: { name: 'catch_up_policy', label: 'Catch-up policy', type: 'select', options: CATCH_UP_POLICIES, kinds: SCHEDULED_KINDS, hint: 'After slots passed while the service was down: one runs a single catch-up; none records them missed and runs nothing.' },
  jitter_seconds: { name: 'jitter_seconds', label: 'Jitter (seconds)', type: 'number', kinds: SCHEDULED_KINDS, hint: '0 to 3600: each run starts at a random delay up to this after its slot, drawn once per slot.' },
  max_concurrent_executions: { name: 'max_concurrent_executions', label: 'Max concurrent executions', type: 'number', hint: '0 is unlimited; empty: 0 for request jobs, 1 for step-driven jobs.' },
  on_success_url: { name: 'on_success_url', label: 'On success callback', type: 'url', placeholder: 'https://example.com/done', hint: 'A URL called with the result after a success (optional).' },
  on_failure_url: { name: 'on_failure_url', label: 'On failure callback', type: 'url', placeholder: 'https://example.com/failed', hint: 'A URL called with the result after a failure (optional).' },
  notification_override: { name: 'notification_override', label: 'Notification override', type: 'select', options: NOTIFICATION_OVERRIDES, hint: 'mute_all sends no notification for this job.' },
} satisfies Record<string, FieldSpec>;

const JOB_FIELD_LABELS: Record<string, string> = { ...Object.fromEntries(Object.values(F).map((f) => [f.name, f.label])), steps: 'Steps' };

const STEP_ERROR_KEY = /^steps\[(\d+)\](?:\.([a-z_]+))?$/;

/** Where the summary links a problem to, and what it calls the field: the job's fields, then the step list's. */
function summaryTarget(name: string, steps: StepsEditor): { label: string; id: string } | null {
  if (name === 'steps') return { label: 'Steps', id: steps.jsonOpen ? fieldId({ name: 'steps' }) : STEPS_EDITOR_ID };
  const step = STEP_ERROR_KEY.exec(name);
  if (!step) return JOB_FIELD_LABELS[name] ? { label: JOB_FIELD_LABELS[name], id: fieldId({ name }) } : null;
  const index = Number(step[1]);
  const type = steps.rows[index]?.type ?? '';
  if (!step[2] || !rowFields(type).includes(step[2])) return { label: `Step ${index + 1}`, id: `step-${index}` };
  return { label: stepLabel(index, step[2], type), id: stepControlId(index, step[2]) };
}

interface JobFormOptions {
  action: string;
  submitLabel: string;
  mode: 'create' | 'edit';
  values: FormValues;
  errors: FieldErrors;
  steps: StepsEditor;
  /** Where Cancel goes, on the edit page. */
  cancel?: string;
}

/** The New job form and a job's edit form: every field of a job, grouped, with the API's messages. */
export function jobForm(ctx: ViewContext, options: JobFormOptions): Html {
  const { values, errors } = options;
  const f = (spec: FieldSpec) => field(spec, values[spec.name], errors[spec.name]);
  const webhookSecret: FieldSpec =
    options.mode === 'edit' ? { ...F.webhook_secret, hint: 'Leave empty to keep the current secret. Callers send it as X-Webhook-Secret.' } : F.webhook_secret;
  const title = options.mode === 'create' ? 'The job was not created.' : 'The changes were not saved.';
  const targets = Object.fromEntries(Object.keys(errors).flatMap((name) => {
    const target = summaryTarget(name, options.steps);
    return target ? [[name, target]] : [];
  }));
  const labels = Object.fromEntries(Object.entries(targets).map(([name, t]) => [name, t.label]));
  // Enter in a field presses the form's first submit button: a hidden Save comes before the step list's buttons.
  return html`${errorSummary(title, errors, labels, (name) => targets[name]?.id ?? '')}
<form class="stacked" method="post" action="${options.action}" data-job-form novalidate>
${csrfField(ctx.csrf)}
<button type="submit" hidden>${options.submitLabel}</button>
<fieldset><legend>Job</legend>
${f(F.name)}
${f(F.kind)}
${f(F.state)}
</fieldset>
<fieldset data-kinds="recurring cron scheduled workflow"><legend>Schedule</legend>
${f(F.every_n_minutes)}
${f(F.cron)}
${f(F.run_at)}
<div class="grid">${f(F.overlap_policy)}${f(F.catch_up_policy)}</div>
${f(F.jitter_seconds)}
</fieldset>
<fieldset data-kinds="${REQUEST.join(' ')}"><legend>Request</legend>
${f(F.url)}
<div class="grid">${f(F.method)}${f(F.timeout_seconds)}</div>
${f(F.headers)}
${f(F.body)}
${f(F.success_statuses)}
<div class="grid">${f(F.success_pattern)}${f(F.failure_pattern)}</div>
${f(F.pattern_flags)}
${f(F.response_assertions)}
${f(F.response_output_template)}
</fieldset>
<fieldset data-kinds="${STEPS.join(' ')}"><legend>Steps</legend>
${stepsEditor(options.steps, errors, options.action)}
${f(F.max_workflow_duration_seconds)}
${f(webhookSecret)}
</fieldset>
<fieldset><legend>Retries and limits</legend>
<div class="grid">${f(F.max_attempts)}${f(F.max_concurrent_executions)}</div>
${f(F.retry_on_statuses)}
</fieldset>
<fieldset><legend>Callbacks and notifications</legend>
${f(F.on_success_url)}
${f(F.on_failure_url)}
${f(F.notification_override)}
</fieldset>
<div class="actions"><button type="submit" class="primary">${options.submitLabel}</button>${options.cancel ? html`<a class="button" href="${options.cancel}">Cancel</a>` : ''}</div>
</form>`;
}
