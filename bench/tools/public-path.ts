// `node --import tsx bench/tools/public-path.ts [--tree DIR] [--jobs N] [--in-flight N]`
//
// The public path measured the way issue 10 measured it, on any checkout of the service, so that
// a commit from before the api-e2e scenario existed can be measured with the same client on the
// same machine: `npm start`'s supervisor of the checkout at DIR (default: this one) on a
// throwaway database and Redis prefix, N one_time jobs created through POST /v1/jobs with a fixed
// number in flight against the bench's target, and the clock running from the first create until
// GET /v1/executions?status=succeeded reports all N. Needs only what every version of the service
// has: the supervisor, BOOTSTRAP_API_TOKEN, REDIS_PREFIX and the public API. docs/BENCHMARKS.md
// ("Before and after") holds what it measured.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, repoRoot, spawnManaged, stopAll } from '../harness/processes.js';
import { createDatabase, databaseUrl, deleteByPrefix, dropDatabase, REDIS_URL } from '../harness/stores.js';
import { startTarget } from '../harness/target.js';
import { parseCpuTicks } from '../lib/proc.js';
import { summarize } from '../lib/stats.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const tree = path.resolve(option('--tree', repoRoot));
const jobs = Number(option('--jobs', '20000'));
const inFlight = Number(option('--in-flight', '32'));
if (!existsSync(path.join(tree, 'scripts', 'start.ts')) || !existsSync(path.join(tree, 'node_modules'))) {
  process.stderr.write(`${tree} is not an installed checkout of the service (scripts/start.ts and node_modules)\n`);
  process.exit(64);
}

const dbName = `cronsvc_bench_${process.pid}`;
const prefix = `cronsvc_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
// At least 32 characters: the service runs with NODE_ENV=production, which refuses a shorter one.
const token = `bench-${randomBytes(16).toString('hex')}`;
const port = 20_000 + (process.pid % 10_000);
const baseUrl = `http://127.0.0.1:${port}`;
const auth = { Authorization: `Bearer ${token}` };

async function succeeded(): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/executions?status=succeeded&limit=1`, { headers: auth });
  return ((await res.json()) as { total: number }).total;
}

// CPU is steadier than a rate on a shared machine: the ticks spent by the supervisor and every
// process under it, and by the Postgres backends of the run's database (their command line names
// it), over the measured window.
function serviceTicks(rootPid: number): { service: number; postgres: number } {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  const postgres: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      ticks.set(pid, parseCpuTicks(stat));
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (command.startsWith('postgres: ') && command.includes(` postgres ${dbName} `)) postgres.push(pid);
    } catch {
      // The process ended while the table was read.
    }
  }
  const inService = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === rootPid) return true;
    return false;
  };
  let service = 0;
  for (const [pid, t] of ticks) if (inService(pid)) service += t;
  return { service, postgres: postgres.reduce((sum, pid) => sum + (ticks.get(pid) ?? 0), 0) };
}

/** Busy ticks of the whole machine (every state but idle and iowait), from /proc/stat. */
function machineTicks(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return fields.reduce((a, b) => a + b, 0) - fields[3] - fields[4];
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

await createDatabase(dbName);
const target = await startTarget();
try {
  // A tree with a production build (scripts/run.mjs) is built and runs compiled, as production
  // does; an older one runs its TypeScript through tsx, as it did then.
  const compiled = existsSync(path.join(tree, 'scripts', 'run.mjs'));
  if (compiled) execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: tree, stdio: 'inherit' });
  const service = spawnManaged(
    'service',
    process.execPath,
    compiled ? ['scripts/run.mjs', 'scripts/start.ts'] : ['--import', 'tsx', 'scripts/start.ts'],
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      BOOTSTRAP_API_TOKEN: token,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ALLOW_PRIVATE_TARGETS: 'true',
      MAX_JOBS_PER_WORKSPACE: String(jobs + 1_000),
    },
    tree,
  );
  await waitFor('the API to answer', async () => (await fetch(`${baseUrl}/v1/executions?limit=1`, { headers: auth })).ok, 120_000);
  const body = JSON.stringify({ name: 'public path', kind: 'one_time', request: { url: `${target.url}/e2e` } });
  const post = () => fetch(`${baseUrl}/v1/jobs`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body });
  // Warm-up: JIT, pools and prepared statements, not measured.
  for (let i = 0; i < 200; i++) await (await post()).arrayBuffer();
  await waitFor('the warm-up to run', async () => (await succeeded()) >= 200, 60_000);
  await target.reset();

  const cpuBefore = { ...serviceTicks(service.pid), machine: machineTicks(), self: cpuTicks(process.pid) ?? 0 };
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < jobs) {
        next++;
        const t = performance.now();
        const res = await post();
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        if (res.status !== 201) failures++;
      }
    }),
  );
  const created = performance.now();
  await waitFor('every execution to succeed', async () => (await succeeded()) >= jobs + 200, 600_000);
  const done = performance.now();
  const cpuAfter = { ...serviceTicks(service.pid), machine: machineTicks(), self: cpuTicks(process.pid) ?? 0 };
  const msPerExecution = (key: keyof typeof cpuAfter) => (((cpuAfter[key] - cpuBefore[key]) * 1000) / CLOCK_TICKS_PER_SECOND / jobs).toFixed(3);
  const stats = await target.stats();
  const post99 = summarize(latencies);
  if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
  process.stdout.write(
    `${tree}: ${jobs} one_time jobs, ${inFlight} in flight\n` +
      `  end to end: ${(jobs / ((done - started) / 1000)).toFixed(0)} executions/s (${((done - started) / 1000).toFixed(1)} s)\n` +
      `  POST /v1/jobs: ${(jobs / ((created - started) / 1000)).toFixed(0)} creates/s, p50 ${post99?.p50.toFixed(1)} ms, p99 ${post99?.p99.toFixed(1)} ms, ${failures} not 201\n` +
      `  CPU per execution: service ${msPerExecution('service')} ms, its Postgres backends ${msPerExecution('postgres')} ms, ` +
      `this client ${msPerExecution('self')} ms, whole machine ${msPerExecution('machine')} ms\n` +
      `  target received ${stats.total} requests (${stats.distinct} distinct)\n`,
  );
} finally {
  await stopAll();
  await dropDatabase(dbName);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
}
