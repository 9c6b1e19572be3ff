import { DEFAULT_RETRY_ON_STATUSES, DEFAULT_SUCCESS_STATUSES, REQUEST_KINDS, SCHEDULED_KINDS, STEP_KINDS, type ErrorDetail, type Job } from '@cronsvc/contracts';

/**
 * The New job and edit forms as data: the form's fields (flat strings) to the API's job body and
 * back, and the API's validation details to the fields they are about. The API stays the one
 * validator; this only reshapes, and reports what it cannot reshape (JSON that does not parse).
 */

export type FormValues = Record<string, string>;
export type FieldErrors = Record<string, string[]>;

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

const json = (value: unknown) => (value === undefined || value === null ? '' : JSON.stringify(value, null, 2));

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
    headers: Object.entries(request?.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n'),
    body: typeof request?.body === 'string' ? request.body : json(request?.body),
    timeout_seconds: request?.timeout_seconds?.toString() ?? '',
    success_statuses: request?.success_statuses?.join(', ') ?? '',
    success_pattern: matcher?.success_pattern ?? '',
    failure_pattern: matcher?.failure_pattern ?? '',
    pattern_flags: matcher?.flags ?? '',
    response_assertions: json(request?.response_assertions),
    response_output_template: json(request?.response_output_template),
    steps: json(job.steps),
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

/** The posted form's own fields (strings only; anything else a client sends is dropped). */
export function postedValues(body: unknown): FormValues {
  const values: FormValues = {};
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) if (typeof v === 'string' && k !== '_csrf') values[k] = v;
  return values;
}

type Mode = 'create' | 'edit';

/** An empty field is left out of a new job (the API's default applies) and reset to the default on edit. */
const empty = (mode: Mode) => (mode === 'create' ? undefined : null);

/** Whole numbers become numbers; anything else goes as typed, for the API to say what is wrong. */
function number(text: string | undefined, mode: Mode): unknown {
  const t = (text ?? '').trim();
  if (t === '') return empty(mode);
  return /^-?\d+$/.test(t) ? Number(t) : t;
}

function numberList(text: string | undefined, mode: Mode): unknown {
  const t = (text ?? '').trim();
  if (t === '') return empty(mode);
  return t.split(/[\s,]+/).map((part) => (/^-?\d+$/.test(part) ? Number(part) : part));
}

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

function withoutUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

interface Parsed {
  body: Record<string, unknown>;
  /** Problems found before the API is asked: fields that are not JSON, headers not written as Name: value. */
  errors: FieldErrors;
}

/** The API's job body from the form: only the fields of the chosen kind. */
export function jobBody(values: FormValues, mode: Mode): Parsed {
  const errors: FieldErrors = {};
  const parseJson = (field: string): unknown => {
    const t = (values[field] ?? '').trim();
    if (t === '') return empty(mode);
    try {
      return JSON.parse(t);
    } catch (error) {
      errors[field] = [`is not valid JSON: ${(error as Error).message}`];
      return undefined;
    }
  };
  const kind = values.kind ?? '';
  const body: Record<string, unknown> = { name: values.name ?? '', kind };
  if (values.state) body.state = values.state;

  if (kind === 'recurring') body.schedule = { every_n_minutes: number(values.every_n_minutes, 'create') };
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
      headers: parseHeaders(values.headers ?? '', errors),
      body: parseBody(values.body ?? '', mode),
      timeout_seconds: number(values.timeout_seconds, mode),
      success_statuses: numberList(values.success_statuses, mode),
      response_matcher: matcher,
      response_assertions: parseJson('response_assertions'),
      response_output_template: parseJson('response_output_template'),
    });
  }
  if (isStepKind(kind)) {
    body.steps = parseJson('steps') ?? undefined;
    body.max_workflow_duration_seconds = number(values.max_workflow_duration_seconds, mode);
    if (kind === 'webhook_trigger' && (values.webhook_secret ?? '') !== '') body.webhook_secret = values.webhook_secret;
  }
  if (isScheduledKind(kind)) {
    if (values.overlap_policy) body.overlap_policy = values.overlap_policy;
    if (values.catch_up_policy) body.catch_up_policy = values.catch_up_policy;
    body.jitter_seconds = number(values.jitter_seconds, mode);
  }
  body.retry_policy = withoutUndefined({ max_attempts: number(values.max_attempts, mode), retry_on_statuses: numberList(values.retry_on_statuses, mode) });
  body.max_concurrent_executions = number(values.max_concurrent_executions, 'create');
  body.on_success_url = optionalText(values.on_success_url, mode);
  body.on_failure_url = optionalText(values.on_failure_url, mode);
  if (values.notification_override) body.notification_override = values.notification_override;
  return { body: withoutUndefined(body), errors };
}

/** One header a line, "Name: value"; blank lines are skipped. */
function parseHeaders(text: string, errors: FieldErrors): Record<string, string> {
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    if (colon <= 0) {
      (errors.headers ??= []).push(`line ${i + 1}: write each header as Name: value`);
      return;
    }
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return headers;
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
  ['steps', 'steps'],
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
 * take, say) goes under '' for the form's summary. A schedule's own message goes to the kind's field.
 */
export function fieldErrors(details: ErrorDetail[], kind: string): FieldErrors {
  const scheduleField = kind === 'recurring' ? 'every_n_minutes' : kind === 'scheduled' ? 'run_at' : 'cron';
  const errors: FieldErrors = {};
  for (const detail of details) {
    const field = detail.path === 'schedule' ? scheduleField : (FIELD_OF_PATH.find(([prefix]) => covers(prefix, detail.path))?.[1] ?? '');
    const inner = field && !FIELD_OF_PATH.some(([prefix, f]) => f === field && prefix === detail.path) ? `${detail.path}: ` : '';
    (errors[field] ??= []).push(`${inner}${detail.message}`);
  }
  return errors;
}
