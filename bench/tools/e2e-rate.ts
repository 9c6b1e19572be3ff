// `node --import tsx bench/tools/e2e-rate.ts [--stores embedded|shared] [--jobs N] [--in-flight N] [--seeded] [--profile] [--set K=V ...]`
//
// A quick end-to-end rate through the public path: N one_time jobs created with POST /v1/jobs,
// a fixed number of requests in flight, until every one has succeeded against the bench target.
// Rate = N / (latest finished_at - first POST sent). With --seeded, the API is left out: N
// queued executions are seeded and handed to the queue with the service's own producer (as the
// throughput scenario does), which measures the queue and the executor alone. `--stores embedded` runs the service on an
// embedded PostgreSQL with the queues in it (what `npm start` does on a machine with only
// Node.js); `shared` on DATABASE_URL's server and Redis. For tuning the embedded path; the
// bench's scenarios are what report figures.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { CLOCK_TICKS_PER_SECOND } from '../harness/processes.js';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { closeEmbeddedContext, cpuWindow, ensureService, openContext, PROFILE_DIR, runNames, waitUntil, type BenchStores } from '../harness/context.js';
import { stopAll } from '../harness/processes.js';
import { deleteByPrefix, dropDatabase, REDIS_URL } from '../harness/stores.js';
import { QUICK } from '../lib/params.js';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from '../lib/profile.js';
import { summarize } from '../lib/stats.js';
import { resetServiceData, seedManualExecutions, seedOneTimeJobs, workspaceId } from '../harness/seed.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const stores = option('--stores', 'embedded') as BenchStores;
const jobs = Number(option('--jobs', '5000'));
const inFlight = Number(option('--in-flight', '32'));
const profile = argv.includes('--profile');
const seeded = argv.includes('--seeded');
const serviceEnv: Record<string, string> = {};
argv.forEach((arg, i) => {
  if (arg === '--set') {
    const [key, ...value] = argv[i + 1].split('=');
    serviceEnv[key] = value.join('=');
  }
});

/** CPU ticks of a PostgreSQL server: the postmaster, its live backends, and those that have exited. */
function postgresTicks(postmaster: number): number {
  const fields = (pid: number | string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  // After the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  const own = fields(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const f = fields(entry);
      if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

const names = runNames();
if (profile) rmSync(PROFILE_DIR, { recursive: true, force: true });
const ctx = await openContext({ scenarios: [], quick: true, help: false, serviceEnv, profile }, QUICK, names, stores);
try {
  const service = await ensureService(ctx);
  const body = (i: number) => JSON.stringify({ name: `e2e-${i}`, kind: 'one_time', request: { url: `${ctx.target.url}/e2e`, method: 'GET' } });
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const postmaster = ctx.embedded ? Number(readFileSync(path.join(ctx.embedded.dir, 'postmaster.pid'), 'utf8').split('\n')[0]) : 0;
  const pgTicksBefore = postmaster ? postgresTicks(postmaster) : 0;
  let closeCpu = cpuWindow(service.all());
  let started = Date.now();
  if (seeded) {
    await resetServiceData(ctx.pool);
    const ws = await workspaceId(ctx.pool);
    const owners = await seedOneTimeJobs(ctx.pool, { workspaceId: ws, targetUrl: ctx.target.url, count: 100, namePrefix: 'seeded-' });
    const executions = await seedManualExecutions(ctx.pool, { jobs: owners, count: jobs });
    closeCpu = cpuWindow(service.all());
    started = Date.now();
    for (let i = 0; i < executions.length; i += 1_000) {
      await ctx.queues.enqueueExecutions(executions.slice(i, i + 1_000).map((e) => ({ executionId: e.id, attempt: 1, runAt: e.scheduledFor })));
    }
    next = jobs;
  }
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < jobs) {
        const i = next++;
        const t = performance.now();
        const res = await fetch(`${service.baseUrl}/v1/jobs`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${ctx.apiToken}`, 'Content-Type': 'application/json' },
          body: body(i),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        if (res.status !== 201) failures++;
      }
    }),
  );
  const posted = Date.now();
  await waitUntil(
    'every execution to succeed',
    async () => {
      const { rows } = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE status = 'succeeded'`);
      return rows[0].n >= jobs - failures;
    },
    300_000,
    () => service.assertAlive(),
    100,
  );
  const cpu = closeCpu();
  const pgPercent = postmaster ? ((postgresTicks(postmaster) - pgTicksBefore) / CLOCK_TICKS_PER_SECOND / (cpu.windowMs / 1000)) * 100 : null;
  const { rows } = await ctx.pool.query<{ last: Date; failed: number }>(
    `SELECT max(finished_at) AS last, count(*) FILTER (WHERE status <> 'succeeded')::int AS failed FROM executions`,
  );
  const stats = await ctx.target.stats();
  const seconds = (rows[0].last.getTime() - started) / 1000;
  const post = summarize(latencies);
  process.stdout.write(
    `${stores}: ${jobs} ${seeded ? 'seeded executions' : `one_time jobs, ${inFlight} in flight`}\n` +
      `  end to end: ${(jobs / seconds).toFixed(0)} executions/s (${seconds.toFixed(2)} s)\n` +
      (seeded ? '' : `  POST /v1/jobs: ${(jobs / ((posted - started) / 1000)).toFixed(0)} requests/s, p50 ${post?.p50.toFixed(1)} ms, p99 ${post?.p99.toFixed(1)} ms, ${failures} not 201\n`) +
      `  target received ${stats.total} (${stats.distinct} distinct); executions not succeeded: ${rows[0].failed}\n` +
      `  CPU, % of one core over ${(cpu.windowMs / 1000).toFixed(1)} s: ${Object.entries(cpu.processes).map(([name, v]) => `${name} ${v?.toFixed(0)}`).join(', ')}` +
      `${pgPercent === null ? '' : `, embedded PostgreSQL ${pgPercent.toFixed(0)}`}; machine ${cpu.machineBusyPercent?.toFixed(0)}% busy, load ${os.loadavg()[0].toFixed(1)}\n`,
  );
} finally {
  await stopAll();
  if (stores === 'embedded') await closeEmbeddedContext(ctx);
  else {
    await ctx.queues.close();
    ctx.redis.disconnect();
    await ctx.pool.end();
    await dropDatabase(names.dbName);
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteByPrefix(redis, names.redisPrefix);
    redis.disconnect();
  }
}
if (profile && existsSync(PROFILE_DIR)) {
  for (const file of readdirSync(PROFILE_DIR).filter((f) => f.endsWith('.cpuprofile')).sort()) {
    const summary = summarizeProfile(JSON.parse(readFileSync(path.join(PROFILE_DIR, file), 'utf8')) as CpuProfile);
    process.stdout.write(`\n${formatProfileSummary(file.replace(/\.cpuprofile$/, ''), summary)}\n`);
  }
}
process.exit(0);
