import { DEFAULT_RETRY_ON_STATUSES, DEFAULT_SUCCESS_STATUSES, REQUEST_KINDS, SCHEDULED_KINDS, STEP_KINDS, type ErrorDetail, type Job } from '@cronsvc/contracts';
import {
  addError, jsonField, linesField, linesText, numberField, numberListField, prettyJson, withoutUndefined, type FieldErrors, type FormValues,
} from './form-parsing.js';
import { postedSteps, stepErrorField, type PostedSteps } from './step-form.js';

/**
 * The New job and edit forms as data: the form's fields (flat strings) to the API's job body and
 * back, and the API's validation details to the fields they are about. The API stays the one
 * validator; this only reshapes, and reports what it cannot reshape (JSON that does not parse).
 */

const isRequestKind = (kind: string) => (REQUEST_KINDS as readonly string[]).includes(kind);
const isStepKind = (kind: string) => (STEP_KINDS as readonly string[]).includes(kind);
const isScheduledKind = (kind: string) => (SCHEDULED_KINDS as readonly string[]).includes(kind);

/** A new job's form: the API's defaults, written out so a person sees them. */
export function newJobValues(): FormValues {
  return {
    kind: 'recurring',
    state: 'active',
    method: 'GET',
    timeout_seconds: '30',
    success_statuses: DEFAULT_SUCCESS_STATUSES.join(', '),
    max_attempts: '3',
    retry_on_statuses: DEFAULT_RETRY_ON_STATUSES.join(', '),
    notification_override: 'inherit',
    overlap_policy: 'queue',
    catch_up_policy: 'one',
    jitter_seconds: '0',
  };
}

/** A job as the edit form shows it. Header values show their templates, never a secret's value. */
export function jobValues(job: Job): FormValues {
  const request = job.request;
  const matcher = request?.response_matcher;
  return {
    name: job.name,
    kind: job.kind,
    state: job.state,
    every_n_minutes: job.schedule?.every_n_minutes?.toString() ?? '',
    cron: job.schedule?.cron ?? '',
    run_at: job.schedule?.run_at ?? '',
    url: request?.url ?? '',
    method: request?.method ?? 'GET',
    headers: linesText(request?.headers ?? {}),
    body: typeof request?.body === 'string' ? request.body : prettyJson(request?.body),
    timeout_seconds: request?.timeout_seconds?.toString() ?? '',
    success_statuses: request?.success_statuses?.join(', ') ?? '',
    success_pattern: matcher?.success_pattern ?? '',
    failure_pattern: matcher?.failure_pattern ?? '',
    pattern_flags: matcher?.flags ?? '',
    response_assertions: prettyJson(request?.response_assertions),
    response_output_template: prettyJson(request?.response_output_template),
    max_workflow_duration_seconds: job.max_workflow_duration_seconds?.toString() ?? '',
    max_attempts: job.retry_policy.max_attempts.toString(),
    retry_on_statuses: job.retry_policy.retry_on_statuses.join(', '),
    max_concurrent_executions: job.max_concurrent_executions.toString(),
    on_success_url: job.on_success_url ?? '',
    on_failure_url: job.on_failure_url ?? '',
    notification_override: job.notification_override,
    overlap_policy: job.overlap_policy ?? 'queue',
    catch_up_policy: job.catch_up_policy ?? 'one',
    jitter_seconds: job.jitter_seconds?.toString() ?? '0',
    webhook_secret: '',
  };
}

type Mode = 'create' | 'edit';

/** An empty field is left out of a new job (the API's default applies) and reset to the default on edit. */
const empty = (mode: Mode) => (mode === 'create' ? undefined : null);

function optionalText(text: string | undefined, mode: Mode): unknown {
  const t = (text ?? '').trim();
  return t === '' ? empty(mode) : t;
}

/** A time without a zone is taken as UTC, the zone the console shows every time in. */
function utcTimestamp(text: string | undefined): string | undefined {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  return /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/i.test(t) ? `${t.replace(' ', 'T')}Z` : t;
}

interface Parsed {
  body: Record<string, unknown>;
  /** Problems found before the API is asked: fields that are not JSON, headers not written as Name: value. */
  errors: FieldErrors;
  /** The step list and its JSON as posted, to show again. */
  steps: PostedSteps;
}

/** The API's job body from the form: only the fields of the chosen kind. */
export function jobBody(values: FormValues, mode: Mode): Parsed {
  const steps = postedSteps(values);
  const errors: FieldErrors = {};
  const json = (field: string) => ((values[field] ?? '').trim() === '' ? empty(mode) : jsonField(values[field], field, errors));
  const number = (field: string, as: Mode = mode) => numberField(values[field], empty(as));
  const numbers = (field: string) => numberListField(values[field], empty(mode));
  const kind = values.kind ?? '';
  const body: Record<string, unknown> = { name: values.name ?? '', kind };
  if (values.state) body.state = values.state;

  if (kind === 'recurring') body.schedule = { every_n_minutes: number('every_n_minutes', 'create') };
  if (kind === 'cron' || kind === 'workflow') body.schedule = { cron: (values.cron ?? '').trim() };
  if (kind === 'scheduled') body.schedule = withoutUndefined({ run_at: utcTimestamp(values.run_at) });

  if (isRequestKind(kind)) {
    const patterns = ['success_pattern', 'failure_pattern', 'pattern_flags'].map((f) => values[f] ?? '');
    const matcher = patterns.some((p) => p !== '')
      ? withoutUndefined({ success_pattern: patterns[0] || undefined, failure_pattern: patterns[1] || undefined, flags: patterns[2] || undefined })
      : empty(mode);
    body.request = withoutUndefined({
      url: (values.url ?? '').trim(),
      method: values.method || undefined,
      headers: linesField(values.headers, 'headers', errors, 'header as Name: value') ?? {},
      body: parseBody(values.body ?? '', mode),
      timeout_seconds: number('timeout_seconds'),
      success_statuses: numbers('success_statuses'),
      response_matcher: matcher,
      response_assertions: json('response_assertions'),
      response_output_template: json('response_output_template'),
    });
  }
  if (isStepKind(kind)) {
    Object.assign(errors, steps.errors);
    body.steps = steps.steps;
    body.max_workflow_duration_seconds = number('max_workflow_duration_seconds');
    if (kind === 'webhook_trigger' && (values.webhook_secret ?? '') !== '') body.webhook_secret = values.webhook_secret;
  }
  if (isScheduledKind(kind)) {
    if (values.overlap_policy) body.overlap_policy = values.overlap_policy;
    if (values.catch_up_policy) body.catch_up_policy = values.catch_up_policy;
    body.jitter_seconds = number('jitter_seconds');
  }
  body.retry_policy = withoutUndefined({ max_attempts: number('max_attempts'), retry_on_statuses: numbers('retry_on_statuses') });
  body.max_concurrent_executions = number('max_concurrent_executions', 'create');
  body.on_success_url = optionalText(values.on_success_url, mode);
  body.on_failure_url = optionalText(values.on_failure_url, mode);
  if (values.notification_override) body.notification_override = values.notification_override;
  return { body: withoutUndefined(body), errors, steps };
}

/** JSON is sent as JSON; any other text as the text itself; nothing as no body. */
function parseBody(text: string, mode: Mode): unknown {
  if (text.trim() === '') return mode === 'create' ? undefined : null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// The API's field paths, most specific first, to the form field that edits them.
const FIELD_OF_PATH: [string, string][] = [
  ['schedule.every_n_minutes', 'every_n_minutes'],
  ['schedule.cron', 'cron'],
  ['schedule.run_at', 'run_at'],
  ['request.url', 'url'],
  ['request.method', 'method'],
  ['request.headers', 'headers'],
  ['request.body', 'body'],
  ['request.timeout_seconds', 'timeout_seconds'],
  ['request.success_statuses', 'success_statuses'],
  ['request.response_matcher.success_pattern', 'success_pattern'],
  ['request.response_matcher.failure_pattern', 'failure_pattern'],
  ['request.response_matcher.flags', 'pattern_flags'],
  ['request.response_matcher', 'success_pattern'],
  ['request.response_assertions', 'response_assertions'],
  ['request.response_output_template', 'response_output_template'],
  ['request', 'url'],
  ['retry_policy.max_attempts', 'max_attempts'],
  ['retry_policy.retry_on_statuses', 'retry_on_statuses'],
  ['name', 'name'],
  ['kind', 'kind'],
  ['state', 'state'],
  ['max_workflow_duration_seconds', 'max_workflow_duration_seconds'],
  ['max_concurrent_executions', 'max_concurrent_executions'],
  ['overlap_policy', 'overlap_policy'],
  ['catch_up_policy', 'catch_up_policy'],
  ['jitter_seconds', 'jitter_seconds'],
  ['on_success_url', 'on_success_url'],
  ['on_failure_url', 'on_failure_url'],
  ['notification_override', 'notification_override'],
  ['webhook_secret', 'webhook_secret'],
];

const covers = (prefix: string, path: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);

/**
 * The API's validation details by form field; what no field edits (a schedule the kind does not
 * take, say) goes under '' for the form's summary. A schedule's own message goes to the kind's
 * field; a step's to its field in the step list, or to the JSON when the list does not show the
 * steps that were sent (`jsonOnly`).
 */
export function fieldErrors(details: ErrorDetail[], kind: string, jsonOnly = false): FieldErrors {
  const scheduleField = kind === 'recurring' ? 'every_n_minutes' : kind === 'scheduled' ? 'run_at' : 'cron';
  const errors: FieldErrors = {};
  for (const detail of details) {
    const step = stepErrorField(detail.path);
    if (step) {
      const [field, inner] = jsonOnly ? ['steps', detail.path === 'steps' ? '' : `${detail.path}: `] : [step.field, step.inner];
      addError(errors, field, `${inner}${detail.message}`);
      continue;
    }
    const field = detail.path === 'schedule' ? scheduleField : (FIELD_OF_PATH.find(([prefix]) => covers(prefix, detail.path))?.[1] ?? '');
    const inner = field && !FIELD_OF_PATH.some(([prefix, f]) => f === field && prefix === detail.path) ? `${detail.path}: ` : '';
    addError(errors, field, `${inner}${detail.message}`);
  }
  return errors;
}
