// What an integrator writes against a client generated from /v1/openapi.json: one job of each
// kind, its fields as docs/JOBS.md gives them, then a change to one of them.
// apps/api/test/openapi-clients.test.ts compiles this file against clients made by two
// generators (`./client.mjs` is the adapter to one of them, copied from beside this file) and
// runs it against the API. Each `@ts-expect-error` line below is a body with a field of the
// wrong type: the compile fails when the generated types let one through, as loose types would.
import { connect, type JobBody } from './client.mjs';

const [baseUrl, token, target] = process.argv.slice(2);

const jobs: JobBody[] = [
  { name: 'poll', kind: 'recurring', schedule: { every_n_minutes: 15 }, request: { url: `${target}/poll` } },
  {
    name: 'nightly',
    kind: 'cron',
    schedule: { cron: '0 3 * * *' },
    request: { url: `${target}/nightly`, method: 'POST', headers: { 'X-Source': 'cron' }, body: { full: true }, timeout_seconds: 120 },
    retry_policy: { max_attempts: 5 },
  },
  { name: 'new year', kind: 'scheduled', schedule: { run_at: '2030-01-01T00:00:00Z' }, request: { url: `${target}/new-year` } },
  { name: 'welcome mail', kind: 'one_time', request: { url: `${target}/welcome`, method: 'POST', body: { user: 42 } } },
  {
    name: 'weekly release',
    kind: 'workflow',
    schedule: { cron: '0 9 * * MON' },
    max_workflow_duration_seconds: 7200,
    steps: [
      { id: 'build', type: 'http', method: 'POST', url: `${target}/build`, extract: { build: '$.id' } },
      { id: 'approve', type: 'approval', message: "Ship this week's build?", timeout_seconds: 3600 },
      { id: 'ship', type: 'http', method: 'POST', url: `${target}/ship`, body_template: { build: '{{context.build}}' } },
    ],
  },
  {
    name: 'on push',
    kind: 'webhook_trigger',
    webhook_secret: 's3cret',
    steps: [
      { id: 'deploy', type: 'http', method: 'POST', url: `${target}/deploy`, body_template: { repo: '{{trigger.body.repository}}' } },
      { id: 'smoke-test', type: 'wait_for_webhook', timeout_seconds: 600, on_timeout: 'continue' },
    ],
  },
];

const url = 'https://example.com/';
export const refusedByTheCompiler: JobBody[] = [
  // @ts-expect-error every_n_minutes is a number
  { name: 'x', kind: 'recurring', schedule: { every_n_minutes: '15' }, request: { url } },
  // @ts-expect-error a cron job's schedule is {cron}
  { name: 'x', kind: 'cron', schedule: { every_n_minutes: 15 }, request: { url } },
  // @ts-expect-error run_at is a timestamp string
  { name: 'x', kind: 'scheduled', schedule: { run_at: 1893456000 }, request: { url } },
  // @ts-expect-error a one_time job has no schedule
  { name: 'x', kind: 'one_time', schedule: { cron: '* * * * *' }, request: { url } },
  // @ts-expect-error request.url is a string
  { name: 'x', kind: 'one_time', request: { url: 42 } },
  // @ts-expect-error request.method is one of GET, POST, PUT, PATCH, DELETE
  { name: 'x', kind: 'one_time', request: { url, method: 'FETCH' } },
  // @ts-expect-error request.timeout_seconds is a number
  { name: 'x', kind: 'one_time', request: { url, timeout_seconds: '30' } },
  // @ts-expect-error header values are strings
  { name: 'x', kind: 'one_time', request: { url, headers: { 'X-Count': 3 } } },
  // @ts-expect-error retry_policy.max_attempts is a number
  { name: 'x', kind: 'one_time', request: { url }, retry_policy: { max_attempts: 'five' } },
  // @ts-expect-error a request job has no steps
  { name: 'x', kind: 'one_time', request: { url }, steps: [] },
  // @ts-expect-error a workflow has steps, not a request
  { name: 'x', kind: 'workflow', schedule: { cron: '0 9 * * *' }, request: { url } },
  // @ts-expect-error an http step's url is a string
  { name: 'x', kind: 'workflow', schedule: { cron: '0 9 * * *' }, steps: [{ id: 'a', type: 'http', url: 42 }] },
  // @ts-expect-error an approval step needs its message
  { name: 'x', kind: 'workflow', schedule: { cron: '0 9 * * *' }, steps: [{ id: 'a', type: 'approval' }] },
  // @ts-expect-error an approval's on_timeout is reject or approve
  { name: 'x', kind: 'workflow', schedule: { cron: '0 9 * * *' }, steps: [{ id: 'a', type: 'approval', message: 'ok?', on_timeout: 'continue' }] },
  // @ts-expect-error a step's type is http, wait_for_webhook or approval
  { name: 'x', kind: 'webhook_trigger', steps: [{ id: 'a', type: 'sleep' }] },
  // @ts-expect-error max_workflow_duration_seconds is a number
  { name: 'x', kind: 'webhook_trigger', steps: [{ id: 'a', type: 'wait_for_webhook' }], max_workflow_duration_seconds: '1h' },
  // @ts-expect-error kind is one of the six kinds
  { name: 'x', kind: 'hourly', request: { url } },
];

const client = connect(baseUrl, token);
const created = [];
for (const body of jobs) {
  const job = await client.createJob(body);
  const nextRun: string | null = job.next_run_at;
  // @ts-expect-error the answer's next_run_at is a timestamp string or null
  const asNumber: number = job.next_run_at;
  created.push({ id: job.id, kind: job.kind, next_run_at: nextRun });
}
const changed = await client.updateJob(created[1].id, { request: { timeout_seconds: 60 }, retry_policy: { max_attempts: null } });
process.stdout.write(JSON.stringify({ created, changed: { request: changed.request, retry_policy: changed.retry_policy } }));
