// isolation: one workspace pulls its largest list pages many at once while another workspace lists
// its jobs at a steady pace. The attacker's sizes are those of a security review's attack: 100 jobs
// whose request bodies are 1 MiB each and 100 executions whose trigger inputs are 1 MiB each, pulled
// 24 pages at a time. The other workspace's p99 is judged against 100 ms, and measured alone first.
import { createHash, randomBytes } from 'node:crypto';
import { ensureService, type BenchContext } from '../harness/context.js';
import { loadProcess, resultsOf } from '../harness/load-process.js';
import { sqlId } from '../harness/seed.js';
import type { LoadRun } from '../load/load.js';
import { summarizeLoad } from '../lib/load.js';
import { TARGETS } from '../lib/params.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'isolation';

/** About 1 MiB of text that does not compress, as an attacker would send. */
const heavy = () => randomBytes(750_000).toString('base64');

async function call(url: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** A second workspace with an API token of its own, written straight to Postgres (the bench has no admin token). */
async function victimToken(ctx: BenchContext): Promise<string> {
  const token = `csk_bench_victim_${randomBytes(24).toString('base64url')}`;
  await ctx.pool.query(
    `WITH w AS (
       INSERT INTO workspaces (id, name, signing_key, signing_key_created_at, created_at, updated_at)
       SELECT ${sqlId('wsp')}, 'bench-victim', signing_key, now(), now(), now() FROM workspaces WHERE name = 'default' LIMIT 1
       RETURNING id)
     INSERT INTO api_tokens (id, workspace_id, token_hash, created_at, updated_at) SELECT ${sqlId('tok')}, id, $1, now(), now() FROM w`,
    [createHash('sha256').update(token).digest('hex')],
  );
  return token;
}

export async function isolation(ctx: BenchContext): Promise<ScenarioResult> {
  const p = ctx.params.isolation;
  const service = await ensureService(ctx);
  const base = service.baseUrl;
  ctx.log(`${SCENARIO}: ${p.items} jobs of 1 MiB and ${p.items} trigger inputs of 1 MiB in the attacking workspace`);
  for (let i = 0; i < p.items; i += 1) {
    const job = { name: `heavy ${i}`, kind: 'cron', schedule: { cron: '0 0 1 1 *' }, request: { url: `${ctx.target.url}/heavy`, method: 'POST', body: heavy() } };
    const res = await call(`${base}/v1/jobs`, ctx.apiToken, job);
    if (res.status !== 201) throw new Error(`creating a heavy job answered ${res.status}: ${res.text.slice(0, 500)}`);
  }
  const trigger = await call(`${base}/v1/jobs`, ctx.apiToken, { name: 'heavy trigger', kind: 'webhook_trigger', steps: [{ id: 'call', type: 'http', url: `${ctx.target.url}/t` }] });
  if (trigger.status !== 201) throw new Error(`creating the trigger job answered ${trigger.status}: ${trigger.text}`);
  const { webhook_token: webhookToken } = JSON.parse(trigger.text) as { webhook_token: string };
  for (let i = 0; i < p.items; i += 1) {
    const res = await fetch(`${base}/v1/triggers/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payload: heavy() }) });
    if (res.status !== 200) throw new Error(`a trigger answered ${res.status}`);
  }

  const victim = await victimToken(ctx);
  for (let i = 0; i < 5; i += 1) {
    const res = await call(`${base}/v1/jobs`, victim, { name: `light ${i}`, kind: 'cron', schedule: { cron: '0 0 1 1 *' }, request: { url: `${ctx.target.url}/light` } });
    if (res.status !== 201) throw new Error(`creating a light job answered ${res.status}: ${res.text}`);
  }
  const pages = {
    jobs: `${base}/v1/jobs?limit=${p.items}`,
    executions: `${base}/v1/executions?limit=${p.items}`,
  };
  const pageBytes = {
    jobs: (await call(pages.jobs, ctx.apiToken)).text.length,
    executions: (await call(pages.executions, ctx.apiToken)).text.length,
  };

  const headersOf = (token: string) => ({ authorization: `Bearer ${token}` });
  const common = { method: 'GET' as const, durationSeconds: p.durationSeconds, warmupSeconds: p.warmupSeconds };
  const victimRun = (name: string): LoadRun => ({ name, url: `${base}/v1/jobs?limit=5`, headers: headersOf(victim), ...common, connections: 10, overallRate: p.victimRate, paced: true });
  const timeoutMs = (p.durationSeconds + p.warmupSeconds + 30) * 1000;

  ctx.log(`${SCENARIO}: the other workspace alone, ${p.victimRate} req/s for ${p.durationSeconds} s`);
  const [alone] = await resultsOf(loadProcess('victim-alone', [victimRun('alone')]), timeoutMs);
  ctx.log(`${SCENARIO}: the same while ${p.attackers} connections pull the largest pages`);
  // Half the attacking connections pull job pages, half execution pages, each flat out from a process of its own.
  const attackers = (['jobs', 'executions'] as const).map((kind) =>
    loadProcess(`attack-${kind}`, [{ name: kind, url: pages[kind], headers: headersOf(ctx.apiToken), ...common, connections: p.attackers / 2 }]),
  );
  const victimLoader = loadProcess('victim', [victimRun('attacked')]);
  const [[attacked], ...attacks] = await Promise.all([resultsOf(victimLoader, timeoutMs), ...attackers.map((a) => resultsOf(a, timeoutMs))]);
  service.assertAlive();

  const figures: Figure[] = [];
  const aloneSummary = summarizeLoad(alone.result, { requestedRate: p.victimRate });
  const attackedSummary = summarizeLoad(attacked.result, { requestedRate: p.victimRate });
  figures.push(
    { scenario: SCENARIO, name: `other workspace's GET /v1/jobs?limit=5 alone at ${p.victimRate} req/s: p99`, value: aloneSummary.p99, unit: 'ms', problems: aloneSummary.problems },
    {
      scenario: SCENARIO,
      name: `other workspace's GET /v1/jobs?limit=5 at ${p.victimRate} req/s while ${p.attackers} connections pull the largest pages: p99`,
      value: attackedSummary.p99,
      unit: 'ms',
      target: TARGETS.otherWorkspaceP99Ms,
      problems: attackedSummary.problems,
      unmet: attackedSummary.shortfall ?? undefined,
    },
  );
  for (const { name, result } of attacks.flat()) {
    const s = summarizeLoad(result);
    figures.push(
      { scenario: SCENARIO, name: `attacking pages of ${name} (${p.items} items): pages/s`, value: s.requestsPerSecond, unit: 'req/s', problems: s.problems },
      { scenario: SCENARIO, name: `attacking pages of ${name}: answers that were not 2xx`, value: result.non2xx + result.errors + result.timeouts, unit: '', target: TARGETS.zero },
      { scenario: SCENARIO, name: `a page of ${name}: bytes`, value: pageBytes[name as keyof typeof pageBytes], unit: 'B' },
    );
  }
  return {
    figures,
    parameters: { items: p.items, attackers: p.attackers, victimRate: p.victimRate, durationSeconds: p.durationSeconds },
    details: { pageBytes, alone, attacked, attacks },
  };
}
