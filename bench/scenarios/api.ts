// api: POST /v1/jobs and GET /v1/executions?limit=50 with a large stored history, loaded from a
// separate process. Each endpoint is measured at a fixed rate (the latency targets are quoted at
// a rate: paced evenly, and in autocannon's bursts for comparison) and flat out with autocannon
// (requests per second).
import { ensureService, type BenchContext } from '../harness/context.js';
import { ensureHistory } from '../harness/history.js';
import { runLoad } from '../harness/load-process.js';
import type { LoadRun } from '../load/load.js';
import { summarizeLoad } from '../lib/load.js';
import { TARGETS } from '../lib/params.js';
import type { Figure, Target } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'api';

export async function api(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.api;
  const service = await ensureService(ctx);
  await ensureHistory(ctx, p.executions);
  // What autovacuum does on a live database, done now so it does not run during the load
  // (after the footprint scenario there are a million fresh job rows).
  await ctx.pool.query('VACUUM ANALYZE jobs, executions, attempts');
  const counts = await ctx.pool.query<{ executions: number; jobs: number }>(`SELECT (SELECT count(*)::int FROM executions) AS executions, (SELECT count(*)::int FROM jobs) AS jobs`);
  const { executions, jobs } = counts.rows[0];
  const headers = { authorization: `Bearer ${ctx.apiToken}`, 'content-type': 'application/json' };
  // An hourly job against the target: created, stored, never due during the run.
  const jobBody = JSON.stringify({ name: 'bench api job', kind: 'recurring', schedule: { every_n_minutes: 60 }, request: { url: `${ctx.target.url}/hit`, method: 'GET' } });
  const post = { url: `${service.baseUrl}/v1/jobs`, method: 'POST' as const, headers, body: jobBody };
  const list = { url: `${service.baseUrl}/v1/executions?limit=50`, method: 'GET' as const, headers };
  const common = { durationSeconds: p.durationSeconds, warmupSeconds: p.warmupSeconds };
  // The fire ledger of one of the history's jobs, and the workspace's (every stored fire counted).
  const { rows: [historyJob] } = await ctx.pool.query<{ id: string }>(`SELECT id FROM jobs WHERE name LIKE 'history-%' ORDER BY id LIMIT 1`);
  const jobFires = { url: `${service.baseUrl}/v1/jobs/${historyJob.id}/fires?limit=50`, method: 'GET' as const, headers };
  const fires = { url: `${service.baseUrl}/v1/fires?limit=50`, method: 'GET' as const, headers };
  // The targets are judged at an even pace; autocannon's per-second bursts at the same rate are
  // printed beside them for comparison (see bench/load/paced.ts).
  const runs: (LoadRun & { target?: Target; rate?: number })[] = [
    { name: `POST /v1/jobs at ${p.postRate} req/s`, ...post, ...common, connections: p.connections, overallRate: p.postRate, paced: true, target: TARGETS.postJobsP99Ms, rate: p.postRate },
    { name: `GET /v1/executions?limit=50 at ${p.getRate} req/s`, ...list, ...common, connections: p.connections, overallRate: p.getRate, paced: true, target: TARGETS.executionsPageP99Ms, rate: p.getRate },
    { name: `POST /v1/jobs at ${p.postRate} req/s in autocannon's bursts`, ...post, ...common, connections: p.connections, overallRate: p.postRate, rate: p.postRate },
    { name: `GET /v1/executions?limit=50 at ${p.getRate} req/s in autocannon's bursts`, ...list, ...common, connections: p.connections, overallRate: p.getRate, rate: p.getRate },
    { name: `GET /v1/jobs/:id/fires?limit=50 at ${p.getRate} req/s`, ...jobFires, ...common, connections: p.connections, overallRate: p.getRate, paced: true, rate: p.getRate },
    { name: 'GET /v1/fires?limit=50 flat out', ...fires, ...common, connections: 2 },
    { name: 'POST /v1/jobs flat out', ...post, ...common, connections: 10 },
    { name: 'GET /v1/executions?limit=50 flat out', ...list, ...common, connections: 10 },
  ];
  ctx.log(`${SCENARIO}: ${runs.length} load runs of ${p.durationSeconds} s with ${executions.toLocaleString('en-US')} executions stored`);
  const results = await runLoad('autocannon', runs, runs.length * (p.durationSeconds + common.warmupSeconds + 15) * 1000 + 30_000);
  service.assertAlive();
  const figures: Figure[] = [];
  for (const run of runs) {
    const found = results.find((r) => r.name === run.name);
    const s = found
      ? summarizeLoad(found.result, { requestedRate: run.rate })
      : { requestsPerSecond: null, p50: null, p99: null, total: 0, problems: ['no result'], shortfall: null };
    figures.push(
      { scenario: SCENARIO, name: `${run.name}: requests/s`, value: s.requestsPerSecond, unit: 'req/s', problems: s.problems, note: s.shortfall ?? undefined },
      { scenario: SCENARIO, name: `${run.name}: p50`, value: s.p50, unit: 'ms', problems: s.problems },
      { scenario: SCENARIO, name: `${run.name}: p99`, value: s.p99, unit: 'ms', target: run.target, problems: s.problems, unmet: s.shortfall ?? undefined },
    );
  }
  return {
    figures,
    parameters: {
      executionsStored: executions,
      jobsStored: jobs,
      durationSeconds: p.durationSeconds,
      connections: p.connections,
      flatOutConnections: 10,
      postRate: p.postRate,
      getRate: p.getRate,
    },
    details: { results },
  };
}
