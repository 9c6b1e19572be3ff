import { approvalStep, aWorkflow, createTestContext, httpStep, startTargetServer, waitFor, waitStep, type ChildApp, type TargetServer, type TestContext } from '@cronsvc/core/testing';

// Every app runs as its own process, as `npm run start -w apps/<name>` would, and all of them
// are killed (SIGKILL, nothing handed back) and Redis is flushed while runs wait.
let ctx: TestContext;
let target: TargetServer;
let base: string;
let auth: Record<string, string>;

beforeAll(async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestContext({ PORT: String(port), PUBLIC_BASE_URL: base });
  target = await startTargetServer();
  auth = { Authorization: `Bearer ${(await ctx.workspace()).token}`, 'Content-Type': 'application/json' };
}, 120_000);
afterAll(async () => {
  await ctx.close();
  await target.close();
}, 120_000);

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Starts the API, the scheduler and the executor, and resolves once each of them is serving. */
async function startAll(): Promise<ChildApp[]> {
  const env = { LOG_LEVEL: 'info' };
  const apps = [ctx.spawnApp('api', env), ctx.spawnApp('scheduler', env), ctx.spawnApp('executor', env)];
  await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null))?.ok, { timeoutMs: 60_000, what: 'the API to serve' });
  await waitFor(() => /scheduler started/.test(apps[1].output()) && /executor started/.test(apps[2].output()), { timeoutMs: 60_000, what: 'the workers to start' });
  return apps;
}

const execution = async (id: string) => (await call('GET', `/v1/executions/${id}`)).body;
const until = (id: string, ...statuses: string[]) =>
  waitFor(async () => {
    const exe = await execution(id);
    return statuses.includes(exe.status) ? exe : undefined;
  }, { timeoutMs: 45_000, what: `execution ${id} to be ${statuses.join(' or ')}` });

it('resumes on its token and times out on time after every process was killed and Redis flushed during the wait', async () => {
  let apps = await startAll();
  const resumable = (await call('POST', '/v1/jobs', aWorkflow([waitStep('hook', { extract: { n: '$.n' } }), httpStep('after', `${target.url}/after?n={{context.n}}`)], { name: 'resumable' }))).body;
  const approvable = (await call('POST', '/v1/jobs', aWorkflow([approvalStep('ok', 'Go?'), httpStep('approved', `${target.url}/approved`)], { name: 'approvable' }))).body;
  // Long enough for the restart below (about 10 s on a busy 2-core machine), short enough to wait for.
  const expiring = (await call('POST', '/v1/jobs', aWorkflow([waitStep('hook', { timeout_seconds: 30 })], { name: 'expiring' }))).body;
  const ids = await Promise.all([resumable, approvable, expiring].map(async (job) => (await call('POST', `/v1/jobs/${job.id}/run-now`)).body.id as string));
  const [waitingHook, waitingApproval, waitingTimer] = await Promise.all(ids.map((id) => until(id, 'waiting')));

  await Promise.all(apps.map((app) => app.kill('SIGKILL')));
  await ctx.loseQueues();
  apps = await startAll();
  const restartedAt = Date.now();
  expect(restartedAt).toBeLessThan(new Date(waitingTimer.waiting_expires_at).getTime());
  for (const id of ids) expect((await execution(id)).status).toBe('waiting');

  const resumed = await fetch(waitingHook.waiting_payload.resume_url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"n": 5}' });
  expect(resumed.status).toBe(200);
  const approved = await fetch(waitingApproval.waiting_payload.approve_url, { method: 'POST' });
  expect(approved.status).toBe(200);
  expect((await until(ids[0], 'succeeded', 'failed')).status).toBe('succeeded');
  expect((await until(ids[1], 'succeeded', 'failed')).status).toBe('succeeded');
  expect(target.received.map((r) => r.url).sort()).toEqual(['/after?n=5', '/approved']);

  const expired = await until(ids[2], 'succeeded', 'failed');
  expect(expired).toMatchObject({ status: 'failed', error_class: 'WAIT_TIMEOUT' });
  // On time: within a couple of scheduler ticks of its expiry, although no process that saw it start is left.
  const late = new Date(expired.finished_at).getTime() - new Date(waitingTimer.waiting_expires_at).getTime();
  expect(late).toBeGreaterThanOrEqual(0);
  expect(late).toBeLessThan(2_000);
}, 120_000);
