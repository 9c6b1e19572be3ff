import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { validate } from '../validation/validate.js';
import { DEFAULT_RETRY_ON_STATUSES, DEFAULT_SUCCESS_STATUSES } from '@cronsvc/contracts';
import { jobSchema, jobSchemaOfKind, stepSchemaOfType, type JobInput } from './job-schema.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const URL = 'https://example.com/hook';

type Input = Record<string, unknown>;

function check(input: unknown, now: Date = NOW): JobInput {
  return validate<JobInput>(jobSchema, input, { context: { now } });
}

function detailsOf(input: unknown, now: Date = NOW): ErrorDetail[] {
  let thrown: unknown;
  try {
    check(input, now);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AppError);
  const error = thrown as AppError;
  expect(error.code).toBe('validation_failed');
  expect(error.details).toBeDefined();
  return error.details as ErrorDetail[];
}

const pathsOf = (input: unknown, now: Date = NOW) => detailsOf(input, now).map((d) => d.path);

const recurring = (extra: Input = {}): Input => ({ name: 'ping', kind: 'recurring', schedule: { every_n_minutes: 5 }, request: { url: URL }, ...extra });
const cron = (extra: Input = {}): Input => ({ name: 'nightly', kind: 'cron', schedule: { cron: '0 3 * * *' }, request: { url: URL }, ...extra });
const scheduled = (runAt: unknown, extra: Input = {}): Input => ({ name: 'later', kind: 'scheduled', schedule: { run_at: runAt }, request: { url: URL }, ...extra });
const oneTime = (extra: Input = {}): Input => ({ name: 'once', kind: 'one_time', request: { url: URL }, ...extra });
const workflow = (extra: Input = {}): Input => ({ name: 'flow', kind: 'workflow', schedule: { cron: '0 * * * *' }, steps: [{ id: 'first', type: 'wait_for_webhook' }], ...extra });
const webhook = (extra: Input = {}): Input => ({ name: 'hook', kind: 'webhook_trigger', steps: [{ id: 'first', type: 'wait_for_webhook' }], ...extra });
const withRequest = (request: Input): Input => recurring({ request: { url: URL, ...request } });
const withRetry = (retry_policy: Input): Input => recurring({ retry_policy });

describe('jobSchema fire policies', () => {
  it.each([['recurring', recurring], ['cron', cron], ['workflow', workflow]])('defaults them on %s jobs', (_kind, make) => {
    expect(check(make())).toMatchObject({ overlap_policy: 'queue', catch_up_policy: 'one', jitter_seconds: 0 });
  });

  it('keeps given values at the ends of their ranges', () => {
    expect(check(cron({ overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 3600 }))).toMatchObject({ overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 3600 });
    expect(check(scheduled('2030-06-01T00:00:00Z', { jitter_seconds: 0 })).jitter_seconds).toBe(0);
  });

  it('rejects unknown policies and jitter outside 0..3600, naming only those fields', () => {
    expect(pathsOf(recurring({ overlap_policy: 'parallel', catch_up_policy: 'all', jitter_seconds: 3601 }))).toEqual(['overlap_policy', 'catch_up_policy', 'jitter_seconds']);
    expect(pathsOf(recurring({ jitter_seconds: -1 }))).toEqual(['jitter_seconds']);
    expect(pathsOf(recurring({ jitter_seconds: 1.5 }))).toEqual(['jitter_seconds']);
  });

  it.each([['one_time', oneTime], ['webhook_trigger', webhook]])('rejects each of them on %s jobs and adds none', (_kind, make) => {
    expect(pathsOf(make({ overlap_policy: 'queue' }))).toEqual(['overlap_policy']);
    expect(pathsOf(make({ catch_up_policy: 'one' }))).toEqual(['catch_up_policy']);
    expect(pathsOf(make({ jitter_seconds: 0 }))).toEqual(['jitter_seconds']);
    expect(check(make())).not.toHaveProperty('overlap_policy');
  });
});

describe('jobSchema defaults', () => {
  it('fills every default of a minimal request job', () => {
    expect(check(recurring())).toEqual({
      name: 'ping',
      kind: 'recurring',
      state: 'active',
      tags: [],
      schedule: { every_n_minutes: 5 },
      request: {
        url: URL,
        method: 'GET',
        headers: {},
        body: null,
        timeout_seconds: 30,
        success_statuses: [200, 201, 202, 204],
      },
      retry_policy: { max_attempts: 3, retry_on_statuses: [429, 500, 502, 503, 504] },
      overlap_policy: 'queue',
      catch_up_policy: 'one',
      jitter_seconds: 0,
      on_success_url: null,
      on_failure_url: null,
      notification_override: 'inherit',
    });
  });

  it('fills retry_policy defaults for the missing keys of a partial retry_policy', () => {
    expect(check(withRetry({ max_attempts: 5 })).retry_policy).toEqual({ max_attempts: 5, retry_on_statuses: [429, 500, 502, 503, 504] });
    expect(check(withRetry({ retry_on_statuses: [503] })).retry_policy).toEqual({ max_attempts: 3, retry_on_statuses: [503] });
  });

  it('leaves max_concurrent_executions absent so the kind default can be applied later', () => {
    expect(check(recurring())).not.toHaveProperty('max_concurrent_executions');
  });

  it('defaults max_workflow_duration_seconds to 1800 for step-driven jobs', () => {
    expect(check(workflow()).max_workflow_duration_seconds).toBe(1800);
    expect(check(webhook()).max_workflow_duration_seconds).toBe(1800);
  });

  it('keeps given values instead of defaults', () => {
    const job = check(
      withRequest({ method: 'POST', headers: { 'X-Key': 'v' }, body: { a: 1 }, timeout_seconds: 10, success_statuses: [200] }),
    );
    expect(job.request).toEqual({ url: URL, method: 'POST', headers: { 'X-Key': 'v' }, body: { a: 1 }, timeout_seconds: 10, success_statuses: [200] });
  });

  it('does not share default arrays or objects between validated jobs', () => {
    const first = check(recurring());
    first.request!.success_statuses.push(999);
    first.request!.headers['X-Leak'] = 'yes';
    first.retry_policy.retry_on_statuses.push(418);
    const second = check(recurring());
    expect(second.request!.success_statuses).toEqual([200, 201, 202, 204]);
    expect(second.request!.headers).toEqual({});
    expect(second.retry_policy.retry_on_statuses).toEqual([429, 500, 502, 503, 504]);
    expect(DEFAULT_SUCCESS_STATUSES).toEqual([200, 201, 202, 204]);
    expect(DEFAULT_RETRY_ON_STATUSES).toEqual([429, 500, 502, 503, 504]);
  });

  it('accepts the draft, paused and completed states and mute_all', () => {
    for (const state of ['draft', 'paused', 'completed', 'active']) expect(check(recurring({ state })).state).toBe(state);
    expect(check(recurring({ notification_override: 'mute_all' })).notification_override).toBe('mute_all');
  });
});

describe('jobSchema limits', () => {
  it.each([
    [0, false],
    [1, true],
    [1440, true],
    [1441, false],
  ])('every_n_minutes %i is accepted: %s', (value, ok) => {
    const input = recurring({ schedule: { every_n_minutes: value } });
    if (ok) expect(check(input).schedule).toEqual({ every_n_minutes: value });
    else expect(pathsOf(input)).toEqual(['schedule.every_n_minutes']);
  });

  it.each([1.5, '5', null])('rejects the non-integer every_n_minutes %p', (value) => {
    expect(pathsOf(recurring({ schedule: { every_n_minutes: value } }))).toEqual(['schedule.every_n_minutes']);
  });

  it.each([
    [0, false],
    [1, true],
    [300, true],
    [301, false],
  ])('timeout_seconds %i is accepted: %s', (value, ok) => {
    const input = withRequest({ timeout_seconds: value });
    if (ok) expect(check(input).request!.timeout_seconds).toBe(value);
    else expect(pathsOf(input)).toEqual(['request.timeout_seconds']);
  });

  it.each([
    [0, false],
    [1, true],
    [10, true],
    [11, false],
  ])('max_attempts %i is accepted: %s', (value, ok) => {
    const input = withRetry({ max_attempts: value });
    if (ok) expect(check(input).retry_policy.max_attempts).toBe(value);
    else expect(pathsOf(input)).toEqual(['retry_policy.max_attempts']);
  });

  it('rejects max_concurrent_executions -1 and accepts 0 (unlimited)', () => {
    expect(pathsOf(recurring({ max_concurrent_executions: -1 }))).toEqual(['max_concurrent_executions']);
    expect(check(recurring({ max_concurrent_executions: 0 })).max_concurrent_executions).toBe(0);
    expect(check(workflow({ max_concurrent_executions: 3 })).max_concurrent_executions).toBe(3);
  });

  it.each([
    [99, false],
    [100, true],
    [599, true],
    [600, false],
  ])('status code %i is accepted in success_statuses and retry_on_statuses: %s', (code, ok) => {
    const success = withRequest({ success_statuses: [code] });
    const retry = withRetry({ retry_on_statuses: [code] });
    if (ok) {
      expect(check(success).request!.success_statuses).toEqual([code]);
      expect(check(retry).retry_policy.retry_on_statuses).toEqual([code]);
    } else {
      expect(pathsOf(success)).toEqual(['request.success_statuses[0]']);
      expect(pathsOf(retry)).toEqual(['retry_policy.retry_on_statuses[0]']);
    }
  });

  it('points at the bad element of a status list', () => {
    expect(pathsOf(withRequest({ success_statuses: [200, 600, 204, 99] }))).toEqual(['request.success_statuses[1]', 'request.success_statuses[3]']);
  });

  it('rejects an empty success_statuses list and repeated codes', () => {
    expect(pathsOf(withRequest({ success_statuses: [] }))).toEqual(['request.success_statuses']);
    expect(pathsOf(withRequest({ success_statuses: [200, 200] }))).toEqual(['request.success_statuses[1]']);
  });

  it.each([
    ['recurring', recurring],
    ['cron', cron],
    ['one_time', oneTime],
  ])('rejects max_workflow_duration_seconds on %s jobs', (_kind, make) => {
    expect(pathsOf(make({ max_workflow_duration_seconds: 1800 }))).toEqual(['max_workflow_duration_seconds']);
  });

  it('rejects max_workflow_duration_seconds on scheduled jobs', () => {
    expect(pathsOf(scheduled('2030-06-01T00:00:00Z', { max_workflow_duration_seconds: 60 }))).toEqual(['max_workflow_duration_seconds']);
  });

  it.each([
    [0, false],
    [1, true],
    [7200, true],
    [7201, false],
  ])('max_workflow_duration_seconds %i is accepted on step-driven jobs: %s', (value, ok) => {
    const input = workflow({ max_workflow_duration_seconds: value });
    if (ok) expect(check(input).max_workflow_duration_seconds).toBe(value);
    else expect(pathsOf(input)).toEqual(['max_workflow_duration_seconds']);
  });

  it('rejects an empty or over-long name', () => {
    expect(pathsOf(recurring({ name: '' }))).toEqual(['name']);
    expect(pathsOf(recurring({ name: 'x'.repeat(201) }))).toEqual(['name']);
    expect(check(recurring({ name: 'x'.repeat(200) })).name).toHaveLength(200);
  });
});

describe('jobSchema schedule', () => {
  it.each([
    ['recurring', recurring({ schedule: { every_n_minutes: 5, timezone: 'Europe/Paris' } })],
    ['cron', cron({ schedule: { cron: '0 3 * * *', timezone: 'UTC' } })],
    ['workflow', workflow({ schedule: { cron: '0 3 * * *', timezone: 'UTC' } })],
    ['scheduled', scheduled('2030-06-01T00:00:00Z', { schedule: { run_at: '2030-06-01T00:00:00Z', timezone: 'UTC' } })],
  ])('rejects schedule.timezone on %s jobs', (_kind, input) => {
    const details = detailsOf(input);
    expect(details.map((d) => d.path)).toEqual(['schedule.timezone']);
    expect(details[0].message).toMatch(/UTC/);
  });

  it.each([
    ['recurring', recurring({ schedule: undefined })],
    ['cron', cron({ schedule: undefined })],
    ['workflow', workflow({ schedule: undefined })],
    ['scheduled', scheduled(undefined, { schedule: undefined })],
  ])('requires a schedule for %s jobs', (_kind, input) => {
    expect(pathsOf(input)).toEqual(['schedule']);
  });

  it.each([
    ['one_time', oneTime({ schedule: { cron: '* * * * *' } })],
    ['one_time with an empty schedule', oneTime({ schedule: {} })],
    ['webhook_trigger', webhook({ schedule: { cron: '* * * * *' } })],
  ])('forbids a schedule for %s jobs', (_kind, input) => {
    expect(pathsOf(input)).toEqual(['schedule']);
  });

  it('requires the schedule field of the kind and rejects the fields of other kinds', () => {
    expect(pathsOf(recurring({ schedule: { cron: '* * * * *' } })).sort()).toEqual(['schedule.cron', 'schedule.every_n_minutes']);
    expect(pathsOf(cron({ schedule: { every_n_minutes: 5 } })).sort()).toEqual(['schedule.cron', 'schedule.every_n_minutes']);
    expect(pathsOf(scheduled(undefined, { schedule: {} }))).toEqual(['schedule.run_at']);
  });

  it.each(['0 3 * * *', '@daily', '0 0 13 * 5', '*/15 9-17 * * MON-FRI', '0 0 29 2 *', '0 0 * * 0,7'])('accepts the cron %s', (expression) => {
    expect(check(cron({ schedule: { cron: expression } })).schedule).toEqual({ cron: expression });
  });

  it.each(['61 * * * *', '0 0 * * FRI-MON', '0 0 30 2 *', '0 0 * * * *', '0 0 * *', '0 0 L * *', '@reboot', ''])(
    'rejects the cron %p with path schedule.cron',
    (expression) => {
      const details = detailsOf(cron({ schedule: { cron: expression } }));
      expect(details.map((d) => d.path)).toEqual(['schedule.cron']);
    },
  );

  it('explains why a cron is invalid', () => {
    expect(detailsOf(cron({ schedule: { cron: '0 0 * * FRI-MON' } }))[0].message).toMatch(/^invalid cron expression: .*wrap/);
  });

  it('checks the cron of workflow jobs too', () => {
    expect(pathsOf(workflow({ schedule: { cron: '0 0 30 2 *' } }))).toEqual(['schedule.cron']);
  });
});

describe('jobSchema run_at', () => {
  it.each(['2030-01-01T00:00:00.001Z', '2030-06-01T12:00:00Z', '2030-06-01T12:00:00+02:00', '2030-06-01', '2032-02-29T00:00:00Z'])(
    'accepts the future ISO timestamp %s',
    (runAt) => {
      expect(check(scheduled(runAt)).schedule).toEqual({ run_at: runAt });
    },
  );

  it.each(['2030-01-01T00:00:00.000Z', '2029-12-31T23:59:59.999Z', '2020-01-01T00:00:00Z', '2030-01-01T01:00:00+02:00'])(
    'rejects %s, which is not after now',
    (runAt) => {
      expect(detailsOf(scheduled(runAt))).toEqual([{ path: 'schedule.run_at', message: 'must be in the future' }]);
    },
  );

  it('reads now from the validation context', () => {
    const input = scheduled('2029-06-01T00:00:00Z');
    expect(check(input, new Date('2029-01-01T00:00:00Z')).schedule).toEqual({ run_at: '2029-06-01T00:00:00Z' });
    expect(pathsOf(input, new Date('2030-01-01T00:00:00Z'))).toEqual(['schedule.run_at']);
  });

  it.each(['tomorrow', '2030-W10', '20300601T000000Z', 'June 1, 2031'])('rejects the non-ISO %p with a single format error', (runAt) => {
    const details = detailsOf(scheduled(runAt));
    expect(details).toHaveLength(1);
    expect(details[0].path).toBe('schedule.run_at');
    expect(details[0].message).toMatch(/iso/i);
  });

  it.each(['2031-02-29T00:00:00Z', '2030-02-30T00:00:00Z', '2030-04-31T12:00:00Z'])('rejects the non-existent date %s', (runAt) => {
    expect(pathsOf(scheduled(runAt))).toEqual(['schedule.run_at']);
  });

  it('rejects a time without a time zone designator, which would depend on the server', () => {
    expect(detailsOf(scheduled('2030-06-01T12:00:00'))).toEqual([
      { path: 'schedule.run_at', message: 'must carry a time zone designator (Z or an offset such as +02:00)' },
    ]);
  });

  it('rejects a number instead of a timestamp string', () => {
    expect(pathsOf(scheduled(Date.UTC(2031, 0, 1)))).toEqual(['schedule.run_at']);
  });
});

describe('jobSchema request', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])('accepts the method %s', (method) => {
    expect(check(withRequest({ method })).request!.method).toBe(method);
  });

  it.each(['HEAD', 'OPTIONS', 'CONNECT', 'TRACE', 'get', 'Post', ''])('rejects the method %p', (method) => {
    // An empty string gets two messages (empty, not one of) on the same path.
    expect([...new Set(pathsOf(withRequest({ method })))]).toEqual(['request.method']);
  });

  it.each(['http://example.com/', 'https://example.com/a?b=c', 'https://example.com:8443/x'])('accepts the URL %s', (url) => {
    expect(check(withRequest({ url })).request!.url).toBe(url);
  });

  it.each(['ftp://example.com/file', 'file:///etc/passwd', 'javascript:alert(1)', 'example.com/hook', 'ws://example.com/', '', 'http://'])(
    'rejects the non-http URL %p',
    (url) => {
      expect(pathsOf(withRequest({ url }))).toEqual(['request.url']);
    },
  );

  it('rejects non-http callback URLs and accepts null', () => {
    expect(pathsOf(recurring({ on_success_url: 'ftp://example.com', on_failure_url: 'mailto:a@b.c' })).sort()).toEqual(['on_failure_url', 'on_success_url']);
    expect(check(recurring({ on_success_url: null, on_failure_url: 'https://example.com/failed' }))).toMatchObject({
      on_success_url: null,
      on_failure_url: 'https://example.com/failed',
    });
  });

  it('requires a request URL', () => {
    expect(pathsOf(recurring({ request: {} }))).toEqual(['request.url']);
  });

  it('rejects header values that are not strings', () => {
    expect(pathsOf(withRequest({ headers: { 'X-Count': 5 } }))).toEqual(['request.headers.X-Count']);
  });

  it('accepts valid response_matcher patterns and flags', () => {
    const matcher = { success_pattern: '^ok$', failure_pattern: 'error|fail', flags: 'im' };
    expect(check(withRequest({ response_matcher: matcher })).request!.response_matcher).toEqual(matcher);
  });

  it('checks patterns with the given flags', () => {
    // \p{L} is only valid with the u flag.
    expect(check(withRequest({ response_matcher: { success_pattern: '\\p{L}+', flags: 'u' } })).request!.response_matcher).toEqual({
      success_pattern: '\\p{L}+',
      flags: 'u',
    });
    expect(pathsOf(withRequest({ response_matcher: { success_pattern: '\\p{L', flags: 'u' } }))).toEqual(['request.response_matcher']);
  });

  it.each([
    ['success_pattern', { success_pattern: '(' }],
    ['failure_pattern', { failure_pattern: '[a-' }],
    ['success_pattern with flags', { success_pattern: '*oops', flags: 'i' }],
  ])('rejects a bad regex in %s', (key, matcher) => {
    const details = detailsOf(withRequest({ response_matcher: matcher }));
    expect(details.map((d) => d.path)).toEqual(['request.response_matcher']);
    expect(details[0].message).toContain(`${key.split(' ')[0]} is not a valid regular expression`);
  });

  it('names both patterns when both are bad', () => {
    const details = detailsOf(withRequest({ response_matcher: { success_pattern: '(', failure_pattern: '[' } }));
    expect(details).toHaveLength(1);
    expect(details[0].message).toContain('success_pattern');
    expect(details[0].message).toContain('failure_pattern');
  });

  it.each(['x', 'gg', 'I', 'g i', 'e'])('rejects the invalid regex flags %p', (flags) => {
    expect(pathsOf(withRequest({ response_matcher: { success_pattern: 'ok', flags } }))).toEqual(['request.response_matcher.flags']);
  });

  it('accepts u and v together: patterns run on RE2, which is always Unicode-aware and ignores both', () => {
    expect(check(withRequest({ response_matcher: { success_pattern: 'ok', flags: 'uv' } })).request!.response_matcher).toEqual({ success_pattern: 'ok', flags: 'uv' });
  });

  it('rejects lookahead, which RE2 cannot run, at save time', () => {
    const details = detailsOf(withRequest({ response_matcher: { success_pattern: 'a(?=b)' } }));
    expect(details.map((d) => d.path)).toEqual(['request.response_matcher']);
    expect(details[0].message).toMatch(/lookahead/);
  });

  it('rejects invalid assertions and output templates with their problems', () => {
    const details = detailsOf(
      withRequest({
        response_assertions: { json: [{ path: '$.a', op: 'gt', value: 'x' }], status: [{ op: 'in', value: 200 }] },
        response_output_template: { id: '$.[' },
      }),
    );
    expect(details.map((d) => d.path).sort()).toEqual(['request.response_assertions', 'request.response_output_template']);
    expect(details.find((d) => d.path === 'request.response_assertions')!.message).toMatch(/gt needs a number.*in needs an array|in needs an array.*gt needs a number/);
  });

  it('rejects unknown response_matcher fields', () => {
    expect(pathsOf(withRequest({ response_matcher: { pattern: 'ok' } }))).toEqual(['request.response_matcher.pattern']);
  });
});

describe('jobSchema fields by kind', () => {
  it.each([
    ['recurring', recurring({ request: undefined })],
    ['cron', cron({ request: undefined })],
    ['scheduled', scheduled('2030-06-01T00:00:00Z', { request: undefined })],
    ['one_time', oneTime({ request: undefined })],
  ])('requires a request for %s jobs', (_kind, input) => {
    expect(pathsOf(input)).toEqual(['request']);
  });

  it('rejects a request and requires steps on step-driven jobs', () => {
    expect(pathsOf(workflow({ request: { url: URL } }))).toEqual(['request']);
    expect(pathsOf(webhook({ steps: undefined }))).toEqual(['steps']);
    expect(pathsOf(webhook({ steps: [] }))).toEqual(['steps']);
  });

  it('rejects steps on request jobs', () => {
    expect(pathsOf(recurring({ steps: [{ id: 'x', type: 'wait_for_webhook' }] }))).toEqual(['steps']);
  });

  it('accepts webhook_secret only on webhook_trigger jobs', () => {
    expect(check(webhook({ webhook_secret: 's3cret' })).webhook_secret).toBe('s3cret');
    expect(pathsOf(recurring({ webhook_secret: 's3cret' }))).toEqual(['webhook_secret']);
    expect(pathsOf(workflow({ webhook_secret: 's3cret' }))).toEqual(['webhook_secret']);
  });

  it('accepts a one_time job without a schedule', () => {
    expect(check(oneTime())).toMatchObject({ kind: 'one_time', state: 'active' });
    expect(check(oneTime())).not.toHaveProperty('schedule');
  });

  it('rejects unknown kinds and states', () => {
    expect(pathsOf(recurring({ kind: 'hourly' }))).toContain('kind');
    expect(pathsOf(recurring({ state: 'running' }))).toEqual(['state']);
    expect(pathsOf(recurring({ notification_override: 'mute' }))).toEqual(['notification_override']);
  });
});

describe('jobSchema unknown fields', () => {
  it('rejects an unknown top-level field', () => {
    expect(pathsOf(recurring({ colour: 'blue' }))).toEqual(['colour']);
  });

  it('rejects an unknown field inside request', () => {
    expect(pathsOf(withRequest({ verb: 'GET' }))).toEqual(['request.verb']);
  });

  it('rejects an unknown field inside schedule and retry_policy', () => {
    expect(pathsOf(recurring({ schedule: { every_n_minutes: 5, jitter: 3 } }))).toEqual(['schedule.jitter']);
    expect(pathsOf(withRetry({ backoff: 'linear' }))).toEqual(['retry_policy.backoff']);
  });
});

describe('jobSchema reports every problem at once', () => {
  it('lists every bad field path in one error', () => {
    const input = {
      name: '',
      kind: 'cron',
      state: 'running',
      schedule: { cron: '61 * * * *', timezone: 'Europe/Paris' },
      request: {
        url: 'ftp://example.com',
        method: 'HEAD',
        timeout_seconds: 301,
        success_statuses: [99],
        response_matcher: { success_pattern: 'ok', flags: 'x' },
        verb: 'GET',
      },
      retry_policy: { max_attempts: 11, retry_on_statuses: [600] },
      max_concurrent_executions: -1,
      max_workflow_duration_seconds: 60,
      notification_override: 'loud',
      on_success_url: 'ftp://example.com',
      colour: 'blue',
    };
    expect(pathsOf(input).sort()).toEqual(
      [
        'colour',
        'max_concurrent_executions',
        'max_workflow_duration_seconds',
        'name',
        'notification_override',
        'on_success_url',
        'request.method',
        'request.response_matcher.flags',
        'request.success_statuses[0]',
        'request.timeout_seconds',
        'request.url',
        'request.verb',
        'retry_policy.max_attempts',
        'retry_policy.retry_on_statuses[0]',
        'schedule.cron',
        'schedule.timezone',
        'state',
      ].sort(),
    );
  });

  it('names every bad path in the error message', () => {
    let thrown: unknown;
    try {
      check(recurring({ name: '', schedule: { every_n_minutes: 0 }, request: { url: 'nope' } }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    const error = thrown as AppError;
    expect(error.status).toBe(400);
    for (const path of ['name', 'schedule.every_n_minutes', 'request.url']) expect(error.message).toContain(`${path}:`);
  });
});

describe('jobSchemaOfKind and stepSchemaOfType (the OpenAPI document\'s schemas by kind and step type)', () => {
  const bodies: Record<string, Input> = {
    recurring: recurring(),
    cron: cron({ retry_policy: { max_attempts: 5 } }),
    scheduled: scheduled('2030-06-01T00:00:00Z'),
    one_time: oneTime({ request: { url: URL, method: 'POST', body: { a: 1 } } }),
    workflow: workflow({ max_workflow_duration_seconds: 3600, steps: [{ id: 'a', type: 'http', url: URL }, { id: 'b', type: 'approval', message: 'ok?' }] }),
    webhook_trigger: webhook({ webhook_secret: 's3cret' }),
  };

  it.each(Object.entries(bodies))('takes a %s job as jobSchema does, defaults included', (kind, body) => {
    expect(validate(jobSchemaOfKind(kind as JobInput['kind']), body, { context: { now: NOW } })).toEqual(check(body));
  });

  it.each(Object.keys(bodies))('refuses the jobs of every other kind as a %s job', (kind) => {
    for (const [other, body] of Object.entries(bodies)) {
      if (other !== kind) expect(() => validate(jobSchemaOfKind(kind as JobInput['kind']), body, { context: { now: NOW } })).toThrow(AppError);
    }
  });

  it('takes each step as the steps of a job do, and only steps of its type', () => {
    const steps = [{ id: 'a', type: 'http', url: URL }, { id: 'b', type: 'wait_for_webhook', timeout_seconds: 60 }, { id: 'c', type: 'approval', message: 'ok?' }] as const;
    const job = check(workflow({ steps }));
    steps.forEach((step, i) => {
      expect(validate(stepSchemaOfType(step.type), step)).toEqual(job.steps![i]);
      for (const other of steps) if (other.type !== step.type) expect(() => validate(stepSchemaOfType(other.type), step)).toThrow(AppError);
    });
  });
});
