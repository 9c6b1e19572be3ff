// The api-e2e scenario's load generator, in its own process: what an integrator does. It sends
// creates of one_time jobs (or run-now calls on existing jobs) through the public API, either
// closed loop with a fixed number in flight or paced at a fixed rate, and, for the closed loop,
// polls GET /v1/executions?status=succeeded until every execution it caused has succeeded.
// Reads its spec from E2E_SPEC (JSON) and prints "RESULTS <json>".
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { LoadResult } from '../lib/load.js';
import { summarize, type Summary } from '../lib/stats.js';
import { runPaced } from './paced.js';

/** What one request sends: a job create (body) or a run-now (a job id per request). */
export type E2eCall = { kind: 'create'; body: string } | { kind: 'run-now'; jobIdsFile: string };

export interface ClosedSpec {
  mode: 'closed';
  baseUrl: string;
  token: string;
  call: E2eCall;
  count: number;
  inFlight: number;
  /** The succeeded total (GET /v1/executions?status=succeeded) that means every execution of this run has succeeded. */
  succeededTotal: number;
  timeoutMs: number;
}

export interface PacedSpec {
  mode: 'paced';
  baseUrl: string;
  token: string;
  runs: {
    name: string;
    call: E2eCall;
    rate: number;
    durationSeconds: number;
    warmupSeconds: number;
    connections: number;
    /** A second paced load sent at the same time (unmeasured), to keep the executor busy. */
    alongside?: { call: E2eCall; rate: number };
  }[];
}

export interface ClosedResult {
  /** First create sent to last execution seen succeeded. */
  elapsedMs: number;
  /** First create sent to last create answered. */
  callsElapsedMs: number;
  latency: Summary | null;
  statuses: Record<string, number>;
  errors: number;
  /** The succeeded total last read; below succeededTotal when the run timed out. */
  succeeded: number;
  polls: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function call(method: string, url: string, token: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = http.request(url, { method, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The request of call number i: method, URL and body. */
function requestFor(spec: { baseUrl: string }, c: E2eCall): (i: number) => { method: string; url: string; body?: string } {
  if (c.kind === 'create') return () => ({ method: 'POST', url: `${spec.baseUrl}/v1/jobs`, body: c.body });
  const ids = readFileSync(c.jobIdsFile, 'utf8').split('\n').filter(Boolean);
  return (i) => ({ method: 'POST', url: `${spec.baseUrl}/v1/jobs/${ids[i % ids.length]}/run-now` });
}

async function succeededTotal(spec: { baseUrl: string; token: string }): Promise<number> {
  const res = await call('GET', `${spec.baseUrl}/v1/executions?status=succeeded&limit=1`, spec.token);
  if (res.status !== 200) throw new Error(`GET /v1/executions answered ${res.status}: ${res.body.slice(0, 200)}`);
  return (JSON.parse(res.body) as { total: number }).total;
}

async function closedLoop(spec: ClosedSpec): Promise<ClosedResult> {
  const requestOf = requestFor(spec, spec.call);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let next = 0;
  const started = performance.now();
  let callsDoneAt = started;
  const worker = async () => {
    while (next < spec.count) {
      const r = requestOf(next++);
      const sent = performance.now();
      try {
        const res = await call(r.method, r.url, spec.token, r.body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        latencies.push(performance.now() - sent);
      } catch {
        errors += 1;
      }
      callsDoneAt = performance.now();
    }
  };
  let calling = true;
  const calls = Promise.all(Array.from({ length: spec.inFlight }, worker)).finally(() => (calling = false));
  // Read through the API as an integrator would, every 50 ms, until the total is reached.
  let succeeded = 0;
  let polls = 0;
  let doneAt = performance.now();
  while (performance.now() - started < spec.timeoutMs) {
    succeeded = await succeededTotal(spec);
    polls += 1;
    doneAt = performance.now();
    if (succeeded >= spec.succeededTotal && !calling) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await calls;
  return {
    elapsedMs: doneAt - started,
    callsElapsedMs: callsDoneAt - started,
    latency: summarize(latencies),
    statuses: Object.fromEntries([...statuses].map(([code, n]) => [String(code), n])),
    errors,
    succeeded,
    polls,
  };
}

async function paced(spec: PacedSpec): Promise<{ name: string; result: LoadResult }[]> {
  const headers: Record<string, string> = { authorization: `Bearer ${spec.token}`, 'content-type': 'application/json' };
  const loadOf = (c: E2eCall, rate: number, connections: number) => {
    const requestOf = requestFor(spec, c);
    const first = requestOf(0);
    return (durationSeconds: number) =>
      runPaced({ url: first.url, urlFor: (i) => requestOf(i).url, method: 'POST', headers, body: first.body, rate, durationSeconds, connections });
  };
  const out: { name: string; result: LoadResult }[] = [];
  for (const run of spec.runs) {
    const load = loadOf(run.call, run.rate, run.connections);
    const beside = run.alongside ? loadOf(run.alongside.call, run.alongside.rate, run.connections) : null;
    const both = (seconds: number) => Promise.all([load(seconds), beside?.(seconds)]).then(([measured]) => measured);
    if (run.warmupSeconds > 0) await both(run.warmupSeconds);
    out.push({ name: run.name, result: await both(run.durationSeconds) });
  }
  return out;
}

const spec = JSON.parse(process.env.E2E_SPEC ?? '{}') as ClosedSpec | PacedSpec;
const results = spec.mode === 'closed' ? await closedLoop(spec) : await paced(spec);
agent.destroy();
process.stdout.write(`RESULTS ${JSON.stringify(results)}\n`);
