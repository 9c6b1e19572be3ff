import { inTransaction } from '../src/db/client.js';
import { runNow } from '../src/executions/run-now.js';
import { insertEvent } from '../src/notifications/insert-event.js';
import { relayEvents } from '../src/notifications/relay-events.js';
import { aChannel, aJob, aRule, useWorkspace } from './factories.js';

// The outbox's guarantees: an event commits with the change it is about or not at all, and
// each event becomes its deliveries exactly once, however many relays run.

const w = useWorkspace();
let channelId: string;

beforeAll(async () => {
  channelId = (await aChannel(w.ctx.runtime, w.workspaceId, 'webhook', { url: 'https://hooks.example.com/in' })).id;
});

const approval = (jobId: string, executionId: string) => ({
  event: 'approval.required',
  job: { id: jobId, name: 'deploy' },
  execution: { id: executionId, status: 'waiting', waiting_reason: 'approval' },
  approval: {
    step_id: 'approve', step_index: 1, message: 'Ship it?', expires_at: '2030-01-01T00:00:00.000Z',
    review_url: 'https://cron.example.com/v1/approvals/t', approve_url: 'https://cron.example.com/v1/approvals/t/approve', reject_url: 'https://cron.example.com/v1/approvals/t/reject',
  },
  timestamp: '2029-12-31T00:00:00.000Z',
});

async function waitingExecution() {
  const job = await aJob(w.ctx.runtime, w.workspaceId, { name: 'deploy' });
  const exe = await runNow(w.ctx.runtime, w.workspaceId, job.id);
  return { job, exe };
}

it('writes an event inside the caller’s transaction: rolled back with it, or committed with it', async () => {
  const { job, exe } = await waitingExecution();
  await expect(
    w.ctx.runtime.db.$transaction(async (tx) => {
      await insertEvent(tx, { workspaceId: w.workspaceId, type: 'approval.required', executionId: exe.id, payload: approval(job.id, exe.id) }, new Date());
      throw new Error('the state change failed');
    }),
  ).rejects.toThrow('the state change failed');
  expect(await w.ctx.runtime.db.event.count({ where: { executionId: exe.id } })).toBe(0);

  await inTransaction(w.ctx.runtime.pool, (client) => insertEvent(client, { workspaceId: w.workspaceId, type: 'approval.required', executionId: exe.id, payload: approval(job.id, exe.id) }, new Date()));
  expect(await w.ctx.runtime.db.event.count({ where: { executionId: exe.id } })).toBe(1);
});

it('turns approval.required into the job’s on_approval_required deliveries, with the payload as written', async () => {
  const { job, exe } = await waitingExecution();
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_approval_required');
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_failure');
  await w.ctx.runtime.db.$transaction((tx) => insertEvent(tx, { workspaceId: w.workspaceId, type: 'approval.required', executionId: exe.id, payload: approval(job.id, exe.id) }, new Date()));
  await relayEvents(w.ctx.runtime);
  const deliveries = await w.ctx.runtime.db.delivery.findMany({ where: { executionId: exe.id } });
  expect(deliveries).toEqual([expect.objectContaining({ kind: 'channel', channelId, event: 'on_approval_required', status: 'pending', payload: approval(job.id, exe.id) })]);
  expect(await w.ctx.runtime.db.event.count({ where: { executionId: exe.id } })).toBe(0);
});

it('relays every event exactly once when several relays run at the same time', async () => {
  const { job } = await waitingExecution();
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_approval_required');
  const executions = await Promise.all(Array.from({ length: 300 }, () => runNow(w.ctx.runtime, w.workspaceId, job.id)));
  await inTransaction(w.ctx.runtime.pool, async (client) => {
    for (const e of executions) await insertEvent(client, { workspaceId: w.workspaceId, type: 'approval.required', executionId: e.id, payload: approval(job.id, e.id) }, new Date());
  });
  const taken = await Promise.all([1, 2, 3, 4].map(() => relayEvents(w.ctx.runtime, { batchSize: 40 })));
  expect(taken.reduce((a, b) => a + b, 0)).toBe(300);
  const { rows } = await w.ctx.runtime.pool.query(
    `SELECT count(*)::int AS deliveries, count(DISTINCT execution_id)::int AS executions FROM deliveries WHERE execution_id = ANY($1::text[])`,
    [executions.map((e) => e.id)],
  );
  expect(rows[0]).toEqual({ deliveries: 300, executions: 300 });
});

it('drops an event whose execution is gone with its job', async () => {
  const { job, exe } = await waitingExecution();
  await aRule(w.ctx.runtime, w.workspaceId, { kind: 'job', id: job.id }, channelId, 'on_approval_required');
  await w.ctx.runtime.db.$transaction((tx) => insertEvent(tx, { workspaceId: w.workspaceId, type: 'approval.required', executionId: exe.id, payload: approval(job.id, exe.id) }, new Date()));
  await w.ctx.runtime.db.job.delete({ where: { id: job.id } });
  expect(await relayEvents(w.ctx.runtime)).toBeGreaterThanOrEqual(1);
  expect(await w.ctx.runtime.db.event.count({ where: { executionId: exe.id } })).toBe(0);
  expect(await w.ctx.runtime.db.delivery.count({ where: { executionId: exe.id } })).toBe(0);
});
