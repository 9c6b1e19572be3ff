import { createHash } from 'node:crypto';
import type { Express } from 'express';
import fc from 'fast-check';
import request from 'supertest';
import type { FixtureIds, FuzzFixtures } from './fuzz-fixtures.js';
import { pathOf, type FuzzBody, type FuzzRequest, type PathPart } from './fuzz-requests.js';
import { anyText, hostileKey, hostileStrings, hostileValue, rawUrlPieces, Repeated } from './hostile-values.js';

/**
 * The web console's forms, fuzzed like the API's routes (docs/TESTING.md, "Fuzzing"): each POST
 * route of the console gets generated forms, sent with a live session's cookie and its CSRF token
 * so that they get past the checks every form meets first, with fields changed, removed, added or
 * repeated, hostile path ids, and bodies no browser sends.
 */

export type FormFields = Record<string, string>;

/** Valid forms of a console route, given the fixtures' current ids. */
export type ConsoleForms = (ids: FixtureIds) => FormFields[];

const url = 'https://example.com/hook';
const steps = JSON.stringify([{ id: 'call', type: 'http', url }]);
const own = (ids: FixtureIds, resource: keyof FixtureIds['own']) => ids.own[resource]![0];

/** Forms of every console POST route, as the console's own pages fill them in; the test fails on a route missing here. */
export const CONSOLE_FORMS: Record<string, ConsoleForms> = {
  'POST /console/jobs': (): FormFields[] => [
    { name: 'fuzzed', kind: 'recurring', state: 'active', every_n_minutes: '5', url, method: 'GET', timeout_seconds: '30', success_statuses: '200, 201', max_attempts: '3', retry_on_statuses: '500, 503', notification_override: 'inherit' },
    {
      name: 'fuzzed cron', kind: 'cron', cron: '0 * * * *', url, method: 'POST', headers: 'X-A: 1\nX-B: {{secret.EXPORT_KEY}}', body: '{"a": 1}', success_pattern: 'ok',
      failure_pattern: 'fail', pattern_flags: 'i', response_assertions: '{"status": [{"op": "eq", "value": 200}]}', response_output_template: '{"id": "$.id"}',
      on_success_url: url, on_failure_url: url, max_concurrent_executions: '2',
    },
    { name: 'fuzzed once', kind: 'scheduled', run_at: '2099-01-01T00:00:00Z', url },
    { name: 'fuzzed now', kind: 'one_time', state: 'draft', url },
    { name: 'fuzzed workflow', kind: 'workflow', cron: '0 0 1 1 *', steps, max_workflow_duration_seconds: '600' },
    { name: 'fuzzed trigger', kind: 'webhook_trigger', steps, webhook_secret: 'fuzz-webhook-secret' },
  ],
  'POST /console/jobs/import': (): FormFields[] => [
    { crontab: `*/5 * * * * ${url}\n# a comment\n0 3 * * * ${url}?token=abc` },
    { crontab: '0 * * * *\n@daily', default_url: url },
  ],
  'POST /console/jobs/:id': (): FormFields[] => [
    { name: 'edited', kind: 'cron', state: 'active', cron: '0 3 * * *', url, method: 'GET', timeout_seconds: '30', success_statuses: '200', max_attempts: '2', retry_on_statuses: '503' },
    { name: 'edited', kind: 'cron', state: 'paused', cron: '0 3 * * *', url, method: 'PUT', body: 'plain text', headers: 'Content-Type: text/plain' },
  ],
  'POST /console/jobs/:id/run-now': (): FormFields[] => [{}],
  'POST /console/jobs/:id/pause': (): FormFields[] => [{}],
  'POST /console/jobs/:id/resume': (): FormFields[] => [{}],
  'POST /console/jobs/:id/delete': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/jobs/:id/rules': (ids): FormFields[] => [
    { channel_id: own(ids, 'channel'), event: 'on_failure' },
    { channel_id: own(ids, 'channel'), event: 'on_success', after_consecutive_failures: '1', realert_after_minutes: '0' },
    { channel_id: own(ids, 'channel'), event: 'on_failure', after_consecutive_failures: '3', realert_after_minutes: '' },
  ],
  'POST /console/jobs/:id/rules/:ruleId/delete': (): FormFields[] => [{}, { back: '/console/jobs' }],
  'POST /console/executions/:id/replay': (): FormFields[] => [{}],
  'POST /console/dead-letters/replay-job': (ids): FormFields[] => [{ job_id: own(ids, 'job') }],
  'POST /console/dead-letters/purge': (ids): FormFields[] => [{}, { confirmed: 'yes' }, { job_id: own(ids, 'job'), confirmed: 'yes' }],
  'POST /console/dead-letters/:id/replay': (): FormFields[] => [{}],
  'POST /console/dead-letters/:id/remove': (): FormFields[] => [{}],
  'POST /console/tags/:tag/pause': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/tags/:tag/resume': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/monitors': (): FormFields[] => [{ name: 'fuzzed monitor', expected_interval_sec: '60', grace_sec: '5' }, { name: 'fuzzed cron', cron: '0 3 * * *', max_duration_sec: '600' }],
  'POST /console/monitors/:id': (): FormFields[] => [{ name: 'edited', cron: '*/5 * * * *', grace_sec: '5', max_duration_sec: '' }, { name: 'edited', expected_interval_sec: '300' }],
  'POST /console/monitors/:id/rules': (ids): FormFields[] => [{ channel_id: own(ids, 'channel'), event: 'on_recovery' }],
  'POST /console/monitors/:id/pause': (): FormFields[] => [{}],
  'POST /console/monitors/:id/resume': (): FormFields[] => [{}],
  'POST /console/monitors/:id/delete': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/monitors/:id/rules/:ruleId/delete': (): FormFields[] => [{}, { back: '/console/monitors' }],
  'POST /console/channels/monitor-rules': (ids): FormFields[] => [{ monitor_id: own(ids, 'monitor'), channel_id: own(ids, 'channel'), event: 'on_down' }],
  'POST /console/channels/:id/test': (): FormFields[] => [{}],
  'POST /console/channels': (): FormFields[] => [
    { type: 'webhook', name: 'hook', url: 'https://hooks.example.com/in', signing_secret: '' },
    { type: 'email', name: 'mail', email: 'ops@example.com' },
    { type: 'chat_b', name: 'chat', webhook_url: 'https://chat.example.com/hook', mention_role_ids: '42, 43', include_output: 'on' },
  ],
  'POST /console/channels/:id': (): FormFields[] => [{ name: 'renamed', url: '' }, { name: 'renamed', url: 'https://hooks.example.com/other' }],
  'POST /console/channels/rules/:ruleId/snooze': (): FormFields[] => [{ minutes: '60' }, { minutes: '1440', back: '/console/channels' }, { minutes: 'until' }],
  'POST /console/channels/rules/:ruleId/unsnooze': (): FormFields[] => [{}, { back: '/console/jobs' }],
  'POST /console/secrets': (): FormFields[] => [{ name: 'FUZZ_SECRET', value: 'a value' }],
  'POST /console/secrets/:id': (): FormFields[] => [{ value: 'a new value' }],
  'POST /console/secrets/:id/delete': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/tokens': (): FormFields[] => [{ name: 'wallboard', scope: 'read' }, { scope: 'run', expires_at: '2099-01-01T00:00:00Z' }, { expires_at: '2001-01-01T00:00:00Z' }],
  'POST /console/tokens/:id/delete': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/hosts': (): FormFields[] => [{ host: 'fuzz-console.example.com', max_concurrency: '5', max_per_second: '' }, { host: 'API.example.com', max_concurrency: '', max_per_second: '2.5' }],
  'POST /console/hosts/delete': (): FormFields[] => [{ host: 'fuzz.example.com' }, { host: 'fuzz.example.com', confirmed: 'yes' }],
  'POST /console/status-pages': (ids): FormFields[] => [{ name: 'fuzzed page' }, { name: 'fuzzed page', job_ids: own(ids, 'job'), monitor_ids: own(ids, 'monitor') }],
  'POST /console/status-pages/:id': (ids): FormFields[] => [{ name: 'renamed page', job_ids: own(ids, 'job') }, { name: 'renamed page' }],
  'POST /console/status-pages/:id/delete': (): FormFields[] => [{}, { confirmed: 'yes' }],
  'POST /console/sign-out': (): FormFields[] => [{}],
};

/** A signed-in browser of the fuzzed workspace: its session cookie and CSRF token, signed in again when a request ended it. */
export class ConsoleSession {
  cookie = '';
  csrf = '';
  private idHash = '';

  constructor(
    private readonly app: Express,
    private readonly token: string,
  ) {}

  /** Signs in unless the session is alive; says whether it signed in (which changes the state). */
  async ensure(alive: (idHash: string) => Promise<boolean>): Promise<boolean> {
    if (this.idHash && (await alive(this.idHash))) return false;
    const form = await request(this.app).get('/console/sign-in');
    const formCookie = cookiesOf(form).join('; ');
    const signedIn = await request(this.app).post('/console/sign-in').set('Cookie', formCookie).type('form').send({ _csrf: csrfOf(form.text), token: this.token });
    const session = cookiesOf(signedIn).find((c) => c.startsWith('cronsvc_console='));
    if (!session) throw new Error(`the fuzzer could not sign in to the console (${signedIn.status})`);
    this.cookie = session;
    this.idHash = createHash('sha256').update(session.slice('cronsvc_console='.length)).digest('hex');
    this.csrf = csrfOf((await request(this.app).get('/console/jobs').set('Cookie', this.cookie)).text);
    return true;
  }
}

const cookiesOf = (res: request.Response) => ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]);

function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF field in the page');
  return match[1];
}

/** A fuzzed form: the path, whether it carries the session's CSRF token, and its body, the token added when it is sent. */
export interface ConsoleRequest {
  path: PathPart[];
  csrf: boolean;
  body: { type: 'fields'; pairs: [string, string][] } | { type: 'raw'; contentType: string | null; encoding: string | null; content: string | number[] | Repeated };
}

/** What a field may hold instead of its value: text of every kind, numbers written out, JSON of every shape, very long text. */
const hostileField: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 3, arbitrary: anyText() },
  { weight: 2, arbitrary: hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))) },
  { weight: 1, arbitrary: fc.constantFrom(201, 2049, 4001, 65_537, 1_048_577).map((n) => 'x'.repeat(n)) },
);

type Pairs = [string, string][];

/** Up to three changes to a valid form: a field's value replaced, a field removed, a field added, a field sent twice. */
function changedForm(forms: FormFields[]): fc.Arbitrary<Pairs> {
  const change = fc.oneof(
    fc.tuple(fc.constant('replace' as const), fc.nat(), hostileField),
    fc.tuple(fc.constant('remove' as const), fc.nat(), fc.constant('')),
    fc.tuple(fc.constant('add' as const), hostileKey, hostileField),
    fc.tuple(fc.constant('repeat' as const), fc.nat(), hostileField),
  );
  return fc.tuple(fc.constantFrom(...forms), fc.array(change, { maxLength: 3 })).map(([form, changes]) => {
    let pairs: Pairs = Object.entries(form);
    for (const [kind, at, value] of changes) {
      const i = typeof at === 'number' && pairs.length > 0 ? at % pairs.length : -1;
      if (kind === 'add') pairs = [...pairs, [at as string, value]];
      else if (i < 0) continue;
      else if (kind === 'replace') pairs = pairs.map((p, j) => (j === i ? [p[0], value] : p));
      else if (kind === 'remove') pairs = pairs.filter((_, j) => j !== i);
      else pairs = [...pairs, [pairs[i][0], value]];
    }
    return pairs;
  });
}

const RAW_FORM_TYPES = [null, 'application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded; charset=utf-16'];

/** Bodies no form sends: broken percent-encoding, other content types and encodings, too many fields, too many bytes. */
const rawForm: fc.Arbitrary<ConsoleRequest['body']> = fc
  .tuple(
    fc.constantFrom(...RAW_FORM_TYPES),
    fc.option(fc.constantFrom('gzip', 'deflate', 'x-unknown'), { freq: 6 }),
    fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('name', 'value', 'kind', 'confirmed', 'steps', 'body', 'back', 'job_id'), fc.constantFrom(...rawUrlPieces)).map(([k, v]) => `${k}=${v}`) },
      { weight: 2, arbitrary: fc.constantFrom('{"confirmed": "yes"}', 'a[b]=1', 'a=1&a=2&a[]=3', '&&&', '=', '%', '\u0000', 'name=%ED%A0%80') },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Array.from(bytes)) },
      { weight: 1, arbitrary: fc.constantFrom(new Repeated('a=1&', 1001), new Repeated('x', 1_048_577)) },
    ),
  )
  .map(([contentType, encoding, content]) => ({ type: 'raw' as const, contentType, encoding, content }));

/** Forms for the console route `pattern`: mostly a valid form with a few changes on a live object of the workspace. */
export function consoleRequestsFor(pattern: string, fixtures: FuzzFixtures, forms: FormFields[]): fc.Arbitrary<ConsoleRequest> {
  const fields = (arbitrary: fc.Arbitrary<Pairs>) => arbitrary.map((pairs): ConsoleRequest['body'] => ({ type: 'fields', pairs }));
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ path: pathOf(pattern, fixtures, true), csrf: fc.constant(true), body: fields(changedForm(forms)) }) },
    { weight: 2, arbitrary: fc.record({ path: pathOf(pattern, fixtures, false), csrf: fc.constant(true), body: fields(fc.constantFrom(...forms).map((f) => Object.entries(f))) }) },
    { weight: 2, arbitrary: fc.record({ path: pathOf(pattern, fixtures, true), csrf: fc.boolean(), body: rawForm }) },
    { weight: 1, arbitrary: fc.record({ path: pathOf(pattern, fixtures, true), csrf: fc.constant(false), body: fields(fc.constantFrom(...forms).map((f) => Object.entries(f))) }) },
  );
}

/** The form as the fuzzer's HTTP client sends it: the session's cookie, its CSRF token first when the request carries it. */
export function asSent(req: ConsoleRequest, session: ConsoleSession): FuzzRequest {
  const csrf = req.csrf ? `_csrf=${encodeURIComponent(session.csrf)}` : '';
  let body: FuzzBody;
  if (req.body.type === 'fields') {
    const fields = new URLSearchParams(req.body.pairs).toString();
    body = { type: 'raw', contentType: 'application/x-www-form-urlencoded', encoding: null, content: [csrf, fields].filter(Boolean).join('&') };
  } else {
    const content = req.body.content;
    body = { ...req.body, content: csrf && !Array.isArray(content) ? `${csrf}&${String(content)}` : content };
  }
  return { method: 'POST', path: req.path, query: '', credential: 'none', headers: { Cookie: session.cookie }, body };
}
