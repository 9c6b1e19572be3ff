import { claimAttempt, type ClaimedExecution } from '../src/executions/claim-attempt.js';
import { recordAttempt, type AttemptRecord } from '../src/executions/record-attempt.js';
import { newExecutionVariables } from '../src/executions/execution-variables.js';
import { runNow } from '../src/executions/run-now.js';
import { aChannel, aJob, aOneTimeJob, aRule, useWorkspace } from './factories.js';
import { countingPool } from './counting-pool.js';
import type { TestContext } from './test-context.js';

// The executor claims and records the attempts running at the same moment with one statement
// per batch. Every outcome must come out of a mixed batch exactly as it would alone.

let ctx: TestContext;
let workspaceId: string;

const w = useWorkspace();
beforeAll(() => ({ ctx, workspaceId } = w));

async function manualExecutions(jobId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await runNow(ctx.runtime, workspaceId, jobId)).id);
  return ids;
}

const success: AttemptRecord = {
  verdict: { status: 'SUCCESS', errorClass: null, errorMessage: null, outcome: 'succeeded' },
  request: { method: 'POST', url: 'https://x.test/?k=[secret]', headers: { 'X-Key': '[secret]' }, body: '{"a":"\\u0000 é"}', bodyTruncated: false },
  latencyMs: 3,
  statusCode: 200,
  preview: 'ok "quoted" \\ back',
  headers: { 'content-type': 'text/plain' },
  output: { id: 7 },
  budgetWaitMs: 0,
};
const failure: AttemptRecord = {
  verdict: { status: 'HTTP_ERROR', errorClass: 'HTTP_4XX', errorMessage: 'status 404', outcome: 'failed' },
  request: null,
  latencyMs: 4,
  statusCode: 404,
  preview: 'nope',
  headers: {},
  output: null,
  budgetWaitMs: 0,
};
const retry: AttemptRecord = {
  verdict: { status: 'TIMEOUT', errorClass: 'TIMEOUT', errorMessage: 'no answer', outcome: 'retry', retryAt: new Date(Date.now() + 250) },
  request: null,
  latencyMs: 30_000,
  statusCode: null,
  preview: null,
  headers: null,
  output: null,
  budgetWaitMs: 0,
};

it('claims concurrent attempts in few statements, and each claim once', async () => {
  const job = await aJob(ctx.runtime, workspaceId);
  const ids = await manualExecutions(job.id, 40);
  const { pool, statements } = countingPool(ctx.runtime.pool);
  const now = new Date();
  // Every execution asked for twice at once: one of the two askers gets it.
  const results = await Promise.all([...ids, ...ids].map((id) => claimAttempt({ db: ctx.runtime.db, pool }, id, now, 30_000, newExecutionVariables(now))));
  const claimed = results.filter((r) => 'claimed' in r).map((r) => (r as { claimed: ClaimedExecution }).claimed.id);
  expect(claimed.sort()).toEqual([...ids].sort());
  expect(statements.get('claim-attempts')).toBeLessThanOrEqual(4);
  const rows = await ctx.runtime.db.execution.findMany({ where: { id: { in: ids } } });
  expect(rows.every((r) => r.status === 'running' && r.lockedUntil !== null && r.variables !== null)).toBe(true);
});

it('records success, failure, retry, a parked retry and a one-shot completion in one batch, with an outbox event per execution that ended owing a callback', async () => {
  const plain = await aJob(ctx.runtime, workspaceId, { on_success_url: 'https://example.com/ok' });
  const withCallback = await aJob(ctx.runtime, workspaceId, { on_failure_url: 'https://example.com/failed' });
  const oneShot = await aJob(ctx.runtime, workspaceId, aOneTimeJob());
  const [ok, parked, retried] = await manualExecutions(plain.id, 3);
  const [failed] = await manualExecutions(withCallback.id, 1);
  const own = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: oneShot.id } });
  const { pool, statements } = countingPool(ctx.runtime.pool);
  const deps = { db: ctx.runtime.db, pool, clock: ctx.runtime.clock };
  const now = new Date();
  const claim = async (id: string) => {
    const r = await claimAttempt(deps, id, now, 30_000, newExecutionVariables(now));
    if (!('claimed' in r)) throw new Error(`not claimed: ${JSON.stringify(r)}`);
    return r.claimed;
  };
  const claimed = await Promise.all([ok, parked, retried, failed, own.id].map(claim));
  await ctx.runtime.db.execution.update({ where: { id: parked }, data: { parkRequested: true } });

  const [rOk, rParked, rRetried, rFailed, rOwn] = await Promise.all(
    [success, retry, retry, failure, success].map((record, i) => recordAttempt(deps, claimed[i], 1, now, record)),
  );
  expect(statements.get('record-attempts')).toBeLessThanOrEqual(2);
  expect(rOk).toEqual({ recorded: true, nextAttemptAt: null, parked: false });
  expect(rParked).toEqual({ recorded: true, nextAttemptAt: null, parked: true });
  expect(rRetried).toMatchObject({ recorded: true, parked: false });
  expect((rRetried as { nextAttemptAt: Date }).nextAttemptAt.getTime()).toBeGreaterThan(now.getTime());
  expect(rFailed).toMatchObject({ recorded: true, nextAttemptAt: null, parked: false });
  expect(rOwn).toMatchObject({ recorded: true, parked: false });

  const exe = async (id: string) => ctx.runtime.db.execution.findUniqueOrThrow({ where: { id }, include: { attempts: true, deliveries: true } });
  expect(await exe(ok)).toMatchObject({
    status: 'succeeded',
    attemptCount: 1,
    lockedUntil: null,
    deadLetteredAt: null,
    finalResponse: { statusCode: 200, bodyPreview: 'ok "quoted" \\ back' },
    finalOutput: { id: 7 },
    attempts: [{ number: 1, status: 'SUCCESS', statusCode: 200, latencyMs: 3, request: success.request, bodyPreview: 'ok "quoted" \\ back', responseHeaders: { 'content-type': 'text/plain' } }],
  });
  expect(await exe(parked)).toMatchObject({ status: 'waiting', waitingReason: 'manual', parkRequested: false, attemptCount: 1, finishedAt: null });
  expect(await exe(retried)).toMatchObject({ status: 'running', attemptCount: 1, finishedAt: null, lockedUntil: null, attempts: [{ status: 'TIMEOUT', errorClass: 'TIMEOUT', request: null }] });
  const failedRow = await exe(failed);
  expect(failedRow).toMatchObject({ status: 'failed', errorClass: 'HTTP_4XX', errorMessage: 'status 404', finalResponse: { statusCode: 404, bodyPreview: 'nope' } });
  expect(failedRow.deadLetteredAt).not.toBeNull();
  // The callback is not the record statement's business: the execution's outbox event is.
  expect(failedRow.deliveries).toEqual([]);
  const events = await ctx.runtime.db.event.findMany({ where: { executionId: { in: [ok, parked, retried, failed, own.id] } } });
  expect(events.map((e) => [e.executionId, e.type, e.workspaceId, e.payload]).sort()).toEqual(
    [
      [ok, 'execution.succeeded', workspaceId, null],
      [failed, 'execution.failed', workspaceId, null],
    ].sort(),
  );
  // The one-shot job has no callback and no rule: its end owes nothing, so it writes no event.
  expect(await exe(own.id)).toMatchObject({ status: 'succeeded' });
  expect((await ctx.runtime.db.job.findUniqueOrThrow({ where: { id: oneShot.id } })).state).toBe('completed');
});

it('records the rest of a batch when one attempt in it was recorded already', async () => {
  const job = await aJob(ctx.runtime, workspaceId);
  const ids = await manualExecutions(job.id, 3);
  const deps = { db: ctx.runtime.db, pool: ctx.runtime.pool, clock: ctx.runtime.clock };
  const now = new Date();
  const claimed = await Promise.all(
    ids.map(async (id) => ((await claimAttempt(deps, id, now, 30_000, newExecutionVariables(now))) as { claimed: ClaimedExecution }).claimed),
  );
  // Attempt 1 of the first is already stored (another worker's), though the execution still looks running at attempt 0.
  await ctx.runtime.db.attempt.create({ data: { executionId: ids[0], number: 1, status: 'SUCCESS', latencyMs: 1, startedAt: now } });
  const results = await Promise.all(claimed.map((c) => recordAttempt(deps, c, 1, now, success)));
  expect(results.map((r) => r.recorded)).toEqual([false, true, true]);
  const rows = await ctx.runtime.db.execution.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
  expect(rows.find((r) => r.id === ids[0])!.status).toBe('running');
  expect(rows.filter((r) => r.id !== ids[0]).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
});

it('writes an ended execution’s event only when its job owes a callback for that outcome or has rules while not muted', async () => {
  const channelId = (await aChannel(ctx.runtime, workspaceId, 'webhook', { url: 'https://hooks.example.com/in' })).id;
  const ruled = await aJob(ctx.runtime, workspaceId, { name: 'ruled' });
  await aRule(ctx.runtime, workspaceId, { kind: 'job', id: ruled.id }, channelId, 'on_failure');
  const muted = await aJob(ctx.runtime, workspaceId, { name: 'muted', notification_override: 'mute_all' });
  await aRule(ctx.runtime, workspaceId, { kind: 'job', id: muted.id }, channelId, 'on_failure');
  const mutedWithCallback = await aJob(ctx.runtime, workspaceId, { name: 'muted with callback', notification_override: 'mute_all', on_failure_url: 'https://example.com/failed' });
  const successOnly = await aJob(ctx.runtime, workspaceId, { name: 'success callback only', on_success_url: 'https://example.com/ok' });

  const jobs = [ruled, muted, mutedWithCallback, successOnly];
  const ids = (await Promise.all(jobs.map((j) => manualExecutions(j.id, 1)))).flat();
  const deps = { db: ctx.runtime.db, pool: ctx.runtime.pool, clock: ctx.runtime.clock };
  const now = new Date();
  const claimed = await Promise.all(
    ids.map(async (id) => ((await claimAttempt(deps, id, now, 30_000, newExecutionVariables(now))) as { claimed: ClaimedExecution }).claimed),
  );
  await Promise.all(claimed.map((c) => recordAttempt(deps, c, 1, now, failure)));

  expect((await ctx.runtime.db.execution.findMany({ where: { id: { in: ids } } })).map((e) => e.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
  const events = await ctx.runtime.db.event.findMany({ where: { executionId: { in: ids } } });
  // A callback is not a notification: mute_all silences rules, not the job's own callback.
  expect(events.map((e) => e.executionId).sort()).toEqual([ids[0], ids[2]].sort());
});
