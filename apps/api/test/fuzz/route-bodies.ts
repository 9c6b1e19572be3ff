import fc from 'fast-check';
import { JOB_KINDS, JOB_RULE_EVENTS, JOB_STATES, MONITOR_RULE_EVENTS } from '@cronsvc/contracts';
import type { FixtureIds } from './fuzz-fixtures.js';
import { SECRET_NAME } from './fuzz-fixtures.js';
import { anyText, hostileStrings } from './hostile-values.js';
import { mutated } from './mutations.js';

/**
 * The body of every route, as valid bodies to mutate (a function of the fixtures' ids, so a body
 * can name real objects), or `none` for a route that reads no body (it still gets arbitrary JSON
 * and raw bytes). The fuzz test fails on a route missing here, so a new route gets its bodies.
 */
export type RouteBody = 'none' | ((ids: FixtureIds) => fc.Arbitrary<unknown>);

const url = (path: string) => `https://example.com/${path}`;
const secretHeader = { Authorization: `Bearer {{secret.${SECRET_NAME}}}` };

const request = {
  url: url('run?at={{timestamp}}'),
  method: 'POST',
  headers: { 'X-Run': '{{uuid}}', ...secretHeader },
  body: { id: '{{execution_id}}', items: [1, 'two', null, { deep: [true] }] },
  timeout_seconds: 10,
  success_statuses: [200, 201, 204],
  response_matcher: { success_pattern: 'ok|done', failure_pattern: '^error', flags: 'i' },
  response_assertions: {
    status: [{ op: 'lt', value: 300 }],
    json: [{ path: '$.items[0].id', op: 'exists' }, { path: '$.count', op: 'gte', value: 1 }],
    text: [{ op: 'not_contains', value: 'fail' }, { op: 'matches', value: '^[a-z]+' }],
    headers: [{ name: 'content-type', op: 'contains', value: 'json' }, { name: 'x-n', op: 'in', value: ['1', '2'] }],
  },
  response_output_template: { id: '$.id', names: '$.items[*].name', literal: 'fixed', nested: { count: '$.count' } },
};
const retry_policy = { max_attempts: 5, retry_on_statuses: [429, 502, 503] };
const steps = [
  { id: 'fetch', type: 'http', url: url('orders'), method: 'GET', headers: secretHeader, extract: { order_id: '$.id' }, extract_to_context: { last: '$.id' } },
  { id: 'wait', type: 'wait_for_webhook', timeout_seconds: 1200, on_timeout: 'continue', extract: { parcel: '$.parcel' } },
  { id: 'review', type: 'approval', message: 'Ship {{context.order_id}}?', timeout_seconds: 600, on_timeout: 'approve' },
  { id: 'ship', type: 'http', method: 'POST', url: url('orders/{{context.order_id}}'), body_template: { parcel: '{{context.parcel}}', at: '{{timestamp}}' } },
];
const triggeredSteps = [...steps, { id: 'notify', type: 'http', method: 'POST', url: url('notify'), body_template: { by: '{{trigger.body.user}}', all: ['{{trigger.query.q}}'] } }];

/** One valid job of each kind, most fields given, and a few with only what is required. */
export const JOB_BASES: Record<string, unknown>[] = [
  { name: 'recurring', kind: 'recurring', schedule: { every_n_minutes: 5 }, request, retry_policy, max_concurrent_executions: 2, on_success_url: url('ok'), on_failure_url: url('ko') },
  { name: 'cron', kind: 'cron', schedule: { cron: '*/15 9-17 * JAN-MAR mon-fri' }, request, retry_policy, notification_override: 'mute_all', state: 'paused' },
  { name: 'scheduled', kind: 'scheduled', schedule: { run_at: '2040-01-01T09:00:00.000Z' }, request: { url: url('launch'), body: 'plain {{uuid}}' } },
  { name: 'one_time', kind: 'one_time', request: { url: url('once'), method: 'DELETE' }, state: 'draft' },
  { name: 'workflow', kind: 'workflow', schedule: { cron: '@daily' }, steps, max_workflow_duration_seconds: 7200, max_concurrent_executions: 1 },
  { name: 'trigger', kind: 'webhook_trigger', steps: triggeredSteps, webhook_secret: 's3cret' },
  { name: 'minimal', kind: 'cron', schedule: { cron: '0 3 * * *' }, request: { url: url('') } },
  { name: 'minimal trigger', kind: 'webhook_trigger', steps: [{ id: 'a', type: 'approval', message: 'ok?' }] },
];

const JOB_PATCHES: unknown[] = [
  { name: 'renamed' },
  ...JOB_STATES.map((state) => ({ state })),
  { schedule: { cron: '0 4 * * *' } },
  { schedule: { every_n_minutes: 10 } },
  { kind: 'recurring', schedule: { every_n_minutes: 1 }, request: { url: url('x') } },
  { request: { timeout_seconds: 60, method: null, headers: { 'X-A': 'b' } } },
  { request: { url: url('patched'), response_assertions: null } },
  { retry_policy: { max_attempts: 1, retry_on_statuses: null } },
  { steps: [{ id: 'only', type: 'wait_for_webhook' }] },
  { webhook_secret: null },
  { on_failure_url: null, on_success_url: url('done'), notification_override: 'inherit', max_concurrent_executions: 0 },
  ...JOB_BASES,
];

const CHANNEL_CONFIGS: Record<string, unknown>[] = [
  { type: 'webhook', config: { url: url('hook'), signing_secret: `{{secret.${SECRET_NAME}}}` } },
  { type: 'email', config: { email: 'ops@example.com' } },
  { type: 'chat_a', config: { url: url('chat-a'), mention_text: '<!here>', include_output: true } },
  { type: 'chat_b', config: { webhook_url: url('chat-b'), thread_id: '123', mention_role_ids: ['1', '2'] } },
  { type: 'chat_c', config: { bot_token: '123456:ABC-def_ghi', chat_id: '-1001', message_thread_id: 7, disable_web_page_preview: false } },
];

const ids = (list: string[] | undefined) => list ?? [];
/** The real ids of a resource, the workspace's own and another's. */
const real = (x: FixtureIds, resource: keyof FixtureIds['own']) => [...ids(x.own[resource]), ...ids(x.other[resource])];
const oneOf = <T>(values: T[]) => fc.constantFrom(...values);
const jobs = () => mutated(fc.constantFrom<unknown>(...JOB_BASES));
const rule = (events: readonly string[]) => (x: FixtureIds) => mutated(fc.record({ channel_id: oneOf(real(x, 'channel')), event: oneOf([...events]) }));
const channel = () => mutated(oneOf(CHANNEL_CONFIGS).map((c) => ({ name: 'alerts', ...c })));
const monitor = () =>
  mutated(fc.constantFrom<unknown>({ name: 'nightly backup', expected_interval_sec: 86400, grace_sec: 600 }, { name: 'm', expected_interval_sec: 1 }, { name: 'c', schedule: { cron: '0 3 * * *' }, max_duration_sec: 3600 }));
const token = () => mutated(fc.constantFrom<unknown>({}, { name: 'ci', scope: 'read' }, { scope: 'run', expires_at: '2099-01-01T00:00:00Z' }, { expires_at: '2001-01-01T00:00:00Z' }));
const anyPayload = () => mutated(fc.oneof(fc.constantFrom<unknown>({ after: 'abc123', user: 'ann' }, { parcel: 'p-1' }, { comment: 'looks good' }, [1, 2], 'text', null), fc.jsonValue({ maxDepth: 3 })));

export const ROUTE_BODIES: Record<string, RouteBody> = {
  'POST /v1/jobs': jobs,
  'POST /v1/jobs/import': () =>
    mutated(
      fc.record({
        crontab: fc
          .array(fc.constantFrom('0 3 * * * https://example.com/a', '@hourly curl -X POST -H "A: b" -d x=1 https://example.com/b', '# comment', '', 'SHELL=/bin/sh', '*/5 * * * * wget -q https://example.com/c', '61 * * * * https://example.com/d', '@daily /usr/bin/backup.sh', ...hostileStrings.slice(0, 12)), { maxLength: 6 })
          .map((lines) => lines.join('\n')),
        default_url: fc.constant(url('default')),
      }),
    ),
  'POST /v1/jobs/apply': () =>
    mutated(
      fc.record({
        jobs: fc.array(fc.constantFrom<unknown>(...JOB_BASES), { maxLength: 3 }).map((list) =>
          list.map((job, i) => ({ ...(job as Record<string, unknown>), key: `fuzz.${i}`, tags: ['fuzz'] })),
        ),
        prune: fc.boolean(),
        prune_tag: fc.constant('fuzz'),
        dry_run: fc.boolean(),
      }),
    ),
  'GET /v1/jobs/export': 'none',
  'GET /v1/tags': 'none',
  'POST /v1/tags/:tag/pause': 'none',
  'POST /v1/tags/:tag/resume': 'none',
  'GET /v1/jobs': 'none',
  'GET /v1/jobs/:id': 'none',
  'PATCH /v1/jobs/:id': () => mutated(oneOf(JOB_PATCHES)),
  'DELETE /v1/jobs/:id': 'none',
  'POST /v1/jobs/:id/pause': 'none',
  'POST /v1/jobs/:id/resume': 'none',
  'POST /v1/jobs/:id/run-now': 'none',
  'GET /v1/jobs/:id/context': 'none',
  'PATCH /v1/jobs/:id/context': () => mutated(fc.dictionary(fc.constantFrom('order_id', 'a', 'B-2', 'x_y'), fc.oneof(anyText(), fc.constant(null)), { maxKeys: 4 })),
  'GET /v1/jobs/:id/executions': 'none',
  'GET /v1/jobs/:id/fires': 'none',
  'GET /v1/jobs/:id/stats': 'none',
  'POST /v1/jobs/:id/badge/rotate': 'none',
  'GET /v1/jobs/:id/notification-rules': 'none',
  'POST /v1/jobs/:id/notification-rules': rule(JOB_RULE_EVENTS),
  'DELETE /v1/jobs/:id/notification-rules/:rule_id': 'none',
  'GET /v1/executions': 'none',
  'GET /v1/fires': 'none',
  'GET /v1/executions/:id': 'none',
  'POST /v1/executions/:id/replay': 'none',
  'POST /v1/executions/:id/park': 'none',
  'POST /v1/executions/:id/resume': 'none',
  'GET /v1/executions/:id/notifications': 'none',
  'GET /v1/dlq': 'none',
  'GET /v1/dlq/stats': 'none',
  'POST /v1/dlq/replay-batch': (x) => mutated(fc.oneof(fc.record({ ids: fc.uniqueArray(oneOf(real(x, 'execution')), { minLength: 1 }) }), fc.record({ job_id: oneOf(real(x, 'job')) }))),
  'POST /v1/dlq/purge': (x) => mutated(fc.record({ job_id: oneOf(real(x, 'job')), before: fc.constantFrom('2000-01-01T00:00:00Z', '2100-01-01T00:00:00.000+02:00') }, { requiredKeys: [] })),
  'POST /v1/dlq/:id/replay': 'none',
  'DELETE /v1/dlq/:id': 'none',
  'POST /v1/secrets': () => mutated(fc.record({ name: fc.constantFrom('API_KEY', '_x', SECRET_NAME, 'A'.repeat(64)), value: fc.constantFrom('sk_live_123', 'v') })),
  'GET /v1/secrets': 'none',
  'GET /v1/secrets/:id': 'none',
  'PATCH /v1/secrets/:id': () => mutated(fc.record({ value: fc.constantFrom('new value', 'é') })),
  'DELETE /v1/secrets/:id': 'none',
  'GET /v1/host-limits': 'none',
  'GET /v1/host-limits/:host': 'none',
  'PUT /v1/host-limits/:host': () => mutated(fc.record({ max_concurrency: fc.constantFrom(1, 5, 1000), max_per_second: fc.constantFrom(0.1, 20, 10_000) })),
  'DELETE /v1/host-limits/:host': 'none',
  'GET /v1/signing-key': 'none',
  'POST /v1/signing-key/rotate': 'none',
  'GET /v1/notification-deliveries': 'none',
  'POST /v1/notification-deliveries/:id/retry': 'none',
  'POST /v1/notification-channels': channel,
  'GET /v1/notification-channels': 'none',
  'GET /v1/notification-channels/:id': 'none',
  'PATCH /v1/notification-channels/:id': () => mutated(fc.oneof(fc.constantFrom<unknown>({ name: 'renamed' }, { config: { signing_secret: null } }), oneOf(CHANNEL_CONFIGS))),
  'DELETE /v1/notification-channels/:id': 'none',
  'POST /v1/notification-channels/:id/test': 'none',
  'POST /v1/monitors': monitor,
  'GET /v1/monitors': 'none',
  'GET /v1/monitors/:id': 'none',
  'PATCH /v1/monitors/:id': () =>
    mutated(fc.constantFrom<unknown>({ name: 'renamed' }, { expected_interval_sec: 60 }, { grace_sec: 0 }, { name: 'x', expected_interval_sec: 31536000, grace_sec: 31536000 }, { schedule: { cron: '*/5 * * * *' }, max_duration_sec: null })),
  'DELETE /v1/monitors/:id': 'none',
  'POST /v1/monitors/:id/pause': 'none',
  'POST /v1/monitors/:id/resume': 'none',
  'GET /v1/monitors/:id/pings': 'none',
  'POST /v1/monitors/:id/badge/rotate': 'none',
  'GET /v1/monitors/:id/notification-rules': 'none',
  'POST /v1/monitors/:id/notification-rules': rule(MONITOR_RULE_EVENTS),
  'DELETE /v1/monitors/:id/notification-rules/:rule_id': 'none',
  'GET /v1/notification-rules/:id': 'none',
  'POST /v1/notification-rules/:id/snooze': () => mutated(fc.record({ minutes: fc.constantFrom<unknown>(1, 60, 10080, 0, 10081, '60', 1.5) })),
  'POST /v1/notification-rules/:id/unsnooze': 'none',
  'GET /v1/snooze/:token': 'none',
  'POST /v1/snooze/:token': anyPayload,
  'POST /v1/tokens': token,
  'GET /v1/tokens': 'none',
  'DELETE /v1/tokens/:id': 'none',
  'GET /v1/audit-events': 'none',
  'POST /v1/status-pages': (x) => mutated(fc.record({ name: fc.constantFrom('Acme', 'a'.repeat(200)), job_ids: fc.uniqueArray(oneOf(real(x, 'job'))), monitor_ids: fc.uniqueArray(oneOf(real(x, 'monitor'))) }, { requiredKeys: ['name'] })),
  'GET /v1/status-pages': 'none',
  'GET /v1/status-pages/:id': 'none',
  'PATCH /v1/status-pages/:id': (x) => mutated(fc.record({ name: fc.constantFrom('renamed'), job_ids: fc.uniqueArray(oneOf(real(x, 'job'))) }, { requiredKeys: [] })),
  'DELETE /v1/status-pages/:id': 'none',
  'GET /v1/badges/:token': 'none',
  'GET /v1/status/:token': 'none',
  'GET /v1/openapi.json': 'none',
  'POST /v1/triggers/:token': anyPayload,
  'GET /v1/ping/:token': 'none',
  'POST /v1/ping/:token': anyPayload,
  'GET /v1/ping/:token/start': 'none',
  'POST /v1/ping/:token/start': anyPayload,
  'GET /v1/ping/:token/fail': 'none',
  'POST /v1/ping/:token/fail': anyPayload,
  'GET /v1/ping/:token/:exit_status': 'none',
  'POST /v1/ping/:token/:exit_status': anyPayload,
  'POST /v1/resume/:token': anyPayload,
  'GET /v1/approvals/:token': 'none',
  'POST /v1/approvals/:token/approve': anyPayload,
  'POST /v1/approvals/:token/reject': anyPayload,
  'POST /admin/v1/workspaces': () => mutated(fc.record({ name: fc.constantFrom('acme', 'a'.repeat(200)) })),
  'POST /admin/v1/workspaces/:id/tokens': token,
  'DELETE /admin/v1/tokens/:id': 'none',
};

/** Filter values a list might take, valid ones first; the fuzzer mixes them with hostile ones. */
export const QUERY_VALUES: Record<string, string[]> = {
  limit: ['1', '50', '100'],
  offset: ['0', '1', '1000000000'],
  status: ['queued', 'running', 'waiting', 'succeeded', 'failed', 'pending', 'processing', 'sent'],
  sort: ['scheduled_for', 'created_at'],
  order: ['asc', 'desc'],
  from: ['2020-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z', '2020-01-01'],
  to: ['2020-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z', '2030-12-31'],
  job_name: ['job', '%', '_', '\\'],
  state: [...JOB_STATES, 'new', 'up', 'down', 'paused'],
  kind: [...JOB_KINDS],
  name: ['a', 'JOB', '%'],
};
