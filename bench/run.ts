// `npm run bench -- [scenario ...] [--quick] [--set KEY=VALUE ...]`
// Starts the service from the working tree on a throwaway database and Redis prefix, runs the
// scenarios, prints one table, writes bench/results/<scenario>.json, and removes everything it
// created, also on failure and on Ctrl-C.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { openContext, PROFILE_DIR, runNames, type BenchContext } from './harness/context.js';
import { killAllNow, repoRoot, stopAll } from './harness/processes.js';
import { deleteByPrefix, dropDatabase, REDIS_URL } from './harness/stores.js';
import { parseArgs, USAGE, type ScenarioName } from './lib/args.js';
import { FULL, QUICK } from './lib/params.js';
import { formatProfileSummary, summarizeProfile, type CpuProfile } from './lib/profile.js';
import { formatMarkdownTable, formatTable } from './lib/table.js';
import { judge, tally, type Judged } from './lib/verdict.js';
import { api } from './scenarios/api.js';
import { apiE2e } from './scenarios/api-e2e.js';
import { fireLag } from './scenarios/fire-lag.js';
import { idleMemory } from './scenarios/idle-memory.js';
import { isolation } from './scenarios/isolation.js';
import { jobStats } from './scenarios/job-stats.js';
import { monitors } from './scenarios/monitors.js';
import { notifications } from './scenarios/notifications.js';
import { scaling } from './scenarios/scaling.js';
import { schedulesFootprint } from './scenarios/schedules-footprint.js';
import { throughput } from './scenarios/throughput.js';
import { workflows } from './scenarios/workflows.js';
import type { Scenario, ScenarioResult } from './scenarios/types.js';

const SCENARIOS: Record<ScenarioName, Scenario> = {
  'api-e2e': apiE2e,
  throughput,
  'fire-lag': fireLag,
  'schedules-footprint': schedulesFootprint,
  api,
  notifications,
  monitors,
  workflows,
  isolation,
  scaling,
  'job-stats': jobStats,
  'idle-memory': idleMemory,
};

const resultsDir = path.join(repoRoot, 'bench', 'results');

function git(args: string[]): string | null {
  try {
    return execFileSync('git', ['--no-optional-locks', ...args], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? null,
    memoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg(),
  };
}

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(64);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const params = args.quick ? QUICK : FULL;
// The service runs compiled, as in production: build the working tree first.
const built = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts', 'build.ts')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
const names = runNames();
const commit = git(['rev-parse', 'HEAD']);
const dirty = (git(['status', '--porcelain', '--untracked-files=no']) ?? '') !== '';

let ctx: BenchContext | null = null;
let cleaned: Promise<void> | null = null;
/** Set on a signal: what runs after it is torn down under it, so nothing more is recorded. */
let interrupted = false;
/** Stops every process, drops the database and the Redis keys. Safe to call more than once. */
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    await stopAll().catch(() => undefined);
    if (ctx) {
      const { queues, redis, pool } = ctx;
      await queues.close().catch(() => undefined);
      redis.disconnect();
      await pool.end().catch(() => undefined);
    }
    await dropDatabase(names.dbName).catch((e) => process.stderr.write(`dropping ${names.dbName} failed: ${e.message}\n`));
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteByPrefix(redis, names.redisPrefix).catch((e) => process.stderr.write(`deleting ${names.redisPrefix}:* failed: ${e.message}\n`));
    redis.disconnect();
  })();
  return cleaned;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (cleaned) {
      killAllNow();
      process.exit(130);
    }
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping and cleaning up (again to force)\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

if (args.profile) rmSync(PROFILE_DIR, { recursive: true, force: true });

const allJudged: Judged[] = [];
let crashed = false;
const runStarted = Date.now();
try {
  ctx = await openContext(args, params, names);
  mkdirSync(resultsDir, { recursive: true });
  for (const name of args.scenarios) {
    if (interrupted) break;
    const started = new Date();
    let result: ScenarioResult;
    let error: string | undefined;
    try {
      result = await SCENARIOS[name](ctx);
    } catch (e) {
      if (interrupted) break;
      crashed = true;
      error = (e as Error).stack ?? String(e);
      ctx.log(`${name} failed: ${error}`);
      result = { figures: [{ scenario: name, name: 'scenario run', value: null, unit: '', problems: [`crashed: ${(e as Error).message.split('\n')[0]}`] }], parameters: {}, details: {} };
    }
    if (interrupted) break;
    const judged = result.figures.map(judge);
    allJudged.push(...judged);
    const record = {
      scenario: name,
      mode: params.mode,
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: machine(),
      commit,
      workingTreeDirty: dirty,
      serviceEnv: args.serviceEnv,
      parameters: result.parameters,
      figures: judged,
      details: result.details,
      ...(error ? { error } : {}),
    };
    writeFileSync(path.join(resultsDir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
    process.stderr.write(`\n${formatTable(judged)}\n\n`);
  }
} catch (e) {
  crashed = true;
  if (!interrupted) process.stderr.write(`bench failed: ${(e as Error).stack ?? e}\n`);
} finally {
  await cleanup();
}

if (allJudged.length > 0 && !interrupted) {
  const counts = tally(allJudged);
  const header = `${params.mode} run, ${Math.round((Date.now() - runStarted) / 1000)} s, commit ${commit?.slice(0, 12) ?? 'unknown'}${dirty ? ' (+ uncommitted changes)' : ''}, ${os.cpus().length} cpus`;
  process.stdout.write(`\n${header}\n\n${formatTable(allJudged)}\n\n`);
  process.stdout.write(`${counts.PASS} pass, ${counts.FAIL} fail, ${counts['NO DATA']} no data, ${counts.INVALID} invalid, ${counts.INFO} info\n`);
  writeFileSync(path.join(resultsDir, `latest-${params.mode}.md`), `${header}\n\n${formatMarkdownTable(allJudged)}\n`);
}
// Profiles are written when the service processes exit, that is during cleanup.
if (args.profile && existsSync(PROFILE_DIR)) {
  const summaries = readdirSync(PROFILE_DIR)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => formatProfileSummary(f.replace(/\.cpuprofile$/, ''), summarizeProfile(JSON.parse(readFileSync(path.join(PROFILE_DIR, f), 'utf8')) as CpuProfile)));
  const text = `${summaries.join('\n\n')}\n`;
  writeFileSync(path.join(PROFILE_DIR, 'summary.txt'), text);
  process.stdout.write(`\nCPU profiles (whole process lifetime) in ${path.relative(repoRoot, PROFILE_DIR)}/\n\n${text}`);
}
process.exit(interrupted ? 130 : crashed ? 1 : 0);
