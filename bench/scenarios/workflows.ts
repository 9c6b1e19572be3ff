// workflows: step-driven jobs through the whole service. N three-step runs (http, a
// wait_for_webhook resumed by a separate load process, http) for step throughput and the latency
// from a resume to the next step's request; then M triggers posted at once to a webhook_trigger
// job, for triggers accepted per second and how fast the runs they start complete.
import { cpuWindow, ensureService, waitUntil, type BenchContext } from '../harness/context.js';
import { spawnTsx } from '../harness/processes.js';
import { resetServiceData, seedManualExecutions, workspaceId } from '../harness/seed.js';
import { summarizeLoad, type LoadResult } from '../lib/load.js';
import { TARGETS } from '../lib/params.js';
import { summarize } from '../lib/stats.js';
import type { Figure } from '../lib/verdict.js';
import type { ResumeRecord } from '../load/workflow-load.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'workflows';
const ENQUEUE_BATCH = 1_000;
const TRIGGER_SECRET = 'bench-trigger-secret';

async function createJob(ctx: BenchContext, baseUrl: string, body: unknown): Promise<{ id: string; name: string; webhook_token?: string }> {
  const res = await fetch(`${baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`creating a bench job answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string; name: string; webhook_token?: string };
}

/** Runs of one job by final status, and the span from `from` to the latest finish. */
async function outcome(ctx: BenchContext, jobId: string): Promise<{ byStatus: Record<string, number>; firstCreated: Date | null; lastFinished: Date | null }> {
  const { rows } = await ctx.pool.query<{ status: string; n: number; first_created: Date; last_finished: Date | null }>(
    `SELECT status, count(*)::int AS n, min(created_at) AS first_created, max(finished_at) AS last_finished FROM executions WHERE job_id = $1 GROUP BY status`,
    [jobId],
  );
  const firstCreated = rows.map((r) => r.first_created).sort((a, b) => a.getTime() - b.getTime())[0] ?? null;
  const lastFinished = rows.find((r) => r.status === 'succeeded')?.last_finished ?? null;
  return { byStatus: Object.fromEntries(rows.map((r) => [r.status, r.n])), firstCreated, lastFinished };
}

async function threeStepRuns(ctx: BenchContext, baseUrl: string, runs: number): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const job = await createJob(ctx, baseUrl, {
    name: 'bench workflow',
    kind: 'workflow',
    schedule: { cron: '0 0 1 1 *' },
    max_concurrent_executions: 0,
    steps: [
      { id: 'first', type: 'http', url: `${ctx.target.url}/first` },
      { id: 'callback', type: 'wait_for_webhook', timeout_seconds: 600, extract: { n: '$.n' } },
      { id: 'second', type: 'http', url: `${ctx.target.url}/second?n={{context.n}}` },
    ],
  });
  // Watching Postgres before the runs start, so no wait goes unseen.
  const resumer = spawnTsx('resumer', 'bench/load/workflow-load.ts', { LOAD_MODE: 'resume', DATABASE_URL: ctx.databaseUrl, SERVICE_URL: baseUrl, RESUME_COUNT: String(runs) });
  const seeded = await seedManualExecutions(ctx.pool, { jobs: [{ ...job, workspaceId: await workspaceId(ctx.pool) }], count: runs });
  const firstEnqueueAt = Date.now();
  for (let i = 0; i < seeded.length; i += ENQUEUE_BATCH) {
    await ctx.queues.enqueueExecutions(seeded.slice(i, i + ENQUEUE_BATCH).map((e) => ({ executionId: e.id, attempt: 1, runAt: new Date() })));
  }
  let resumes: ResumeRecord[];
  try {
    const [, json] = await resumer.waitForLine(/^RESUMES (.*)$/, ctx.params.workflows.timeoutMs);
    resumes = JSON.parse(json);
  } finally {
    await resumer.stop();
  }
  const finished = async () => {
    const o = await outcome(ctx, job.id);
    return (o.byStatus.succeeded ?? 0) + (o.byStatus.failed ?? 0) >= runs;
  };
  await waitUntil('three-step runs', finished, ctx.params.workflows.timeoutMs, () => ctx.service?.assertAlive());
  const result = await outcome(ctx, job.id);
  const { rows } = await ctx.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM step_executions s JOIN executions e ON e.id = s.execution_id WHERE e.job_id = $1 AND s.status = 'succeeded'`,
    [job.id],
  );
  const steps = rows[0].n;
  // Each run calls the target twice; its second arrival is the step after the resume.
  const arrivals = new Map<string, number[]>();
  for (const a of await ctx.target.arrivals()) arrivals.set(a.executionId, [...(arrivals.get(a.executionId) ?? []), a.at]);
  const latencies = resumes.flatMap((r) => {
    const second = arrivals.get(r.executionId)?.sort((a, b) => a - b)[1];
    return r.status === 200 && second !== undefined ? [second - r.sentAt] : [];
  });
  const problems: string[] = [];
  if ((result.byStatus.succeeded ?? 0) < runs) problems.push(`${result.byStatus.succeeded ?? 0} of ${runs} runs succeeded (${JSON.stringify(result.byStatus)})`);
  const badResumes = resumes.filter((r) => r.status !== 200).length;
  if (badResumes > 0) problems.push(`${badResumes} resumes were not answered 200`);
  if (latencies.length < runs) problems.push(`${runs - latencies.length} runs have no request after their resume`);
  const spanSeconds = result.lastFinished ? (result.lastFinished.getTime() - firstEnqueueAt) / 1000 : null;
  const latency = summarize(latencies);
  return {
    figures: [
      { scenario: SCENARIO, name: `${runs.toLocaleString('en-US')} three-step runs: steps/s`, value: spanSeconds ? steps / spanSeconds : null, unit: 'steps/s', problems },
      { scenario: SCENARIO, name: 'resume to next step: p50', value: latency?.p50 ?? null, unit: 'ms', problems },
      { scenario: SCENARIO, name: 'resume to next step: p99', value: latency?.p99 ?? null, unit: 'ms', target: TARGETS.resumeToNextStepP99Ms, problems },
    ],
    // Where the time went: answering the resume (API), and from that answer to the next request (queue, executor).
    details: {
      runs,
      steps,
      byStatus: result.byStatus,
      spanSeconds,
      resumeToNextStepMs: latency,
      resumeAnsweredMs: summarize(resumes.map((r) => r.answeredAt - r.sentAt)),
      badResumes,
    },
  };
}

async function triggerBurst(ctx: BenchContext, baseUrl: string, count: number, connections: number): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const job = await createJob(ctx, baseUrl, {
    name: 'bench trigger',
    kind: 'webhook_trigger',
    webhook_secret: TRIGGER_SECRET,
    max_concurrent_executions: 0,
    steps: [{ id: 'forward', type: 'http', method: 'POST', url: `${ctx.target.url}/order`, body_template: { order: '{{trigger.body.order.id}}' } }],
  });
  const loader = spawnTsx('triggers', 'bench/load/workflow-load.ts', {
    LOAD_MODE: 'triggers',
    SERVICE_URL: baseUrl,
    TRIGGER_TOKEN: job.webhook_token as string,
    TRIGGER_SECRET,
    TRIGGER_COUNT: String(count),
    TRIGGER_CONNECTIONS: String(connections),
  });
  let load: LoadResult;
  try {
    const [, json] = await loader.waitForLine(/^TRIGGERS (.*)$/, ctx.params.workflows.timeoutMs);
    load = JSON.parse(json);
  } finally {
    await loader.stop();
  }
  const accepted = summarizeLoad(load);
  const stored = async () => Object.values((await outcome(ctx, job.id)).byStatus).reduce((a, b) => a + b, 0);
  const finished = async () => {
    const o = await outcome(ctx, job.id);
    return (o.byStatus.succeeded ?? 0) + (o.byStatus.failed ?? 0) >= count;
  };
  const problems = [...accepted.problems];
  if ((await stored()) < count) problems.push(`${await stored()} of ${count} triggers started a run`);
  await waitUntil('triggered runs', finished, ctx.params.workflows.timeoutMs, () => ctx.service?.assertAlive());
  const result = await outcome(ctx, job.id);
  const runProblems = (result.byStatus.succeeded ?? 0) < count ? [`${result.byStatus.succeeded ?? 0} of ${count} triggered runs succeeded`] : [];
  const spanSeconds = result.firstCreated && result.lastFinished ? (result.lastFinished.getTime() - result.firstCreated.getTime()) / 1000 : null;
  const label = `${count.toLocaleString('en-US')} triggers at once`;
  return {
    figures: [
      { scenario: SCENARIO, name: `${label}: accepted/s`, value: accepted.requestsPerSecond, unit: 'req/s', problems },
      { scenario: SCENARIO, name: `${label}: p99 of POST /v1/triggers`, value: accepted.p99, unit: 'ms', problems },
      { scenario: SCENARIO, name: `${label}: runs completed/s`, value: spanSeconds ? count / spanSeconds : null, unit: 'runs/s', problems: [...problems, ...runProblems] },
    ],
    details: { count, connections, load, byStatus: result.byStatus, runSpanSeconds: spanSeconds },
  };
}

export async function workflows(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.workflows;
  const service = await ensureService(ctx);
  await resetServiceData(ctx.pool);
  await ctx.target.reset();
  const cpu = cpuWindow(service.all());
  ctx.log(`${SCENARIO}: ${p.runs} three-step runs, then ${p.triggers} triggers over ${p.triggerConnections} connections`);
  const runs = await threeStepRuns(ctx, service.baseUrl, p.runs);
  await ctx.target.reset();
  const triggers = await triggerBurst(ctx, service.baseUrl, p.triggers, p.triggerConnections);
  service.assertAlive();
  return {
    figures: [...runs.figures, ...triggers.figures],
    parameters: { runs: p.runs, triggers: p.triggers, triggerConnections: p.triggerConnections, resumesInFlight: 64 },
    details: { threeStepRuns: runs.details, triggers: triggers.details, cpu: cpu() },
  };
}
