// notifications: N executions that fail, each of a job with two rules (a signed webhook and a
// chat_b channel) posting to the local target; 2N deliveries. The clock of the delivery rate runs
// from the first delivery written by the notifier's relay to the last one recorded sent;
// event-to-sent latency is a delivery's sent_at minus its execution's finished_at (the moment the
// event was written). Every delivery must reach the target exactly once (by its Idempotency-Key).
import { apiPost } from '../harness/api-client.js';
import { cpuWindow, ensureService, sleep, waitForCompletion, type BenchContext } from '../harness/context.js';
import { failingJobShape, resetServiceData, seedManualExecutions, seedOneTimeJobs, workspaceId } from '../harness/seed.js';
import { countDeliveries } from '../lib/lag.js';
import { TARGETS } from '../lib/params.js';
import { summarize } from '../lib/stats.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'notifications';
const JOBS = 100;
const ENQUEUE_BATCH = 1_000;

/** Polls the count of settled deliveries until it reaches `expected` or stops moving for stallMs. */
export async function notifications(ctx: BenchContext): Promise<ScenarioResult> {
  const n = ctx.params.notifications.executions;
  const expected = 2 * n;
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const ws = await workspaceId(ctx.pool);

  // Channels and rules through the public API, as a user would set them up.
  const webhook = await apiPost<{ id: string }>(ctx, '/v1/notification-channels', { name: 'bench webhook', type: 'webhook', config: { url: `${ctx.target.url}/webhook`, signing_secret: 'bench-secret' } });
  const chatB = await apiPost<{ id: string }>(ctx, '/v1/notification-channels', { name: 'bench chat_b', type: 'chat_b', config: { webhook_url: `${ctx.target.url}/chat-b`, include_output: true } });
  const jobs = await seedOneTimeJobs(ctx.pool, { workspaceId: ws, targetUrl: ctx.target.url, count: JOBS, namePrefix: 'notify-', shape: failingJobShape(ctx.target.url) });
  for (const job of jobs) {
    for (const channel of [webhook, chatB]) await apiPost(ctx, `/v1/jobs/${job.id}/notification-rules`, { channel_id: channel.id, event: 'on_failure' });
  }
  const executions = await seedManualExecutions(ctx.pool, { jobs, count: n });
  ctx.log(`${SCENARIO}: ${n} failing executions, ${expected} deliveries`);

  const closeCpu = cpuWindow(service.all());
  const started = Date.now();
  for (let i = 0; i < executions.length; i += ENQUEUE_BATCH) {
    await ctx.queues.enqueueExecutions(executions.slice(i, i + ENQUEUE_BATCH).map((e) => ({ executionId: e.id, attempt: 1, runAt: e.scheduledFor })));
  }
  const settled = await waitForCompletion(
    async () => (await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status IN ('sent', 'failed')`)).rows[0].n,
    expected,
    ctx.params.notifications.stallMs,
    () => ctx.service?.assertAlive(),
  );
  const cpu = closeCpu();
  // The target records an arrival when it reads the request; give the last ones a moment.
  await sleep(500);

  const { rows } = await ctx.pool.query<{ id: string; status: string; attempts: number; created: number; sent: number | null; finished: number }>(
    `SELECT d.id, d.status, d.attempts, (extract(epoch FROM d.created_at) * 1000)::float8 AS created,
            (extract(epoch FROM d.sent_at) * 1000)::float8 AS sent, (extract(epoch FROM e.finished_at) * 1000)::float8 AS finished
       FROM deliveries d JOIN executions e ON e.id = d.execution_id`,
  );
  const sent = rows.filter((r) => r.status === 'sent');
  const arrivals = (await ctx.target.arrivals()).filter((a) => a.executionId.startsWith('dlv_'));
  const received = countDeliveries(arrivals.map((a) => a.executionId));
  const problems: string[] = [];
  if (rows.length < expected) problems.push(`${rows.length} of ${expected} deliveries were written`);
  if (sent.length < expected) problems.push(`${sent.length} of ${expected} deliveries were sent (${settled} settled)`);
  if (received.distinct < expected) problems.push(`the target received ${received.distinct} of ${expected} distinct deliveries`);

  const firstCreated = Math.min(...rows.map((r) => r.created));
  const lastSent = Math.max(...sent.map((r) => r.sent as number));
  const rate = sent.length > 0 && lastSent > firstCreated ? (sent.length / (lastSent - firstCreated)) * 1000 : null;
  const latency = summarize(sent.map((r) => (r.sent as number) - r.finished));
  const executionsEnded = await ctx.pool.query<{ first: number; last: number }>(
    `SELECT (extract(epoch FROM min(finished_at)) * 1000)::float8 AS first, (extract(epoch FROM max(finished_at)) * 1000)::float8 AS last FROM executions`,
  );
  const ended = executionsEnded.rows[0];

  const label = `${n.toLocaleString('en-US')} failures x 2 rules`;
  const figures: Figure[] = [
    { scenario: SCENARIO, name: `${label}: delivery rate`, value: rate, unit: 'deliveries/s', target: TARGETS.deliveriesPerSecond, problems, note: 'first delivery written -> last recorded sent' },
    { scenario: SCENARIO, name: `${label}: event-to-sent p50`, value: latency?.p50 ?? null, unit: 'ms', problems },
    { scenario: SCENARIO, name: `${label}: event-to-sent p99`, value: latency?.p99 ?? null, unit: 'ms', target: TARGETS.eventToSentP99Ms, problems },
    { scenario: SCENARIO, name: `${label}: event-to-sent max`, value: latency?.max ?? null, unit: 'ms', problems },
    { scenario: SCENARIO, name: `${label}: not sent`, value: expected - sent.length, unit: '', target: TARGETS.zero },
    { scenario: SCENARIO, name: `${label}: sent more than once`, value: received.duplicates, unit: '', target: TARGETS.zero, note: 'repeated Idempotency-Key at the target' },
    { scenario: SCENARIO, name: `${label}: executions ended per second`, value: ended.last > ended.first ? (n / (ended.last - ended.first)) * 1000 : null, unit: 'exec/s', note: 'the rate events were written at' },
  ];
  return {
    figures,
    parameters: { executions: n, jobs: JOBS, rulesPerJob: 2, channels: ['webhook (signed)', 'chat_b (include_output)'], workload: 'one_time jobs answering 500 with max_attempts 1; seeded queued manual executions enqueued with the service producer' },
    details: {
      expected,
      written: rows.length,
      sent: sent.length,
      failed: rows.filter((r) => r.status === 'failed').length,
      retried: rows.filter((r) => r.attempts > 1).length,
      received,
      latency,
      // Where the time went: event written -> delivery written (the relay), delivery written -> sent.
      relayLag: summarize(rows.map((r) => r.created - r.finished)),
      sendLag: summarize(sent.map((r) => (r.sent as number) - r.created)),
      wallMs: Date.now() - started,
      cpu,
    },
  };
}
