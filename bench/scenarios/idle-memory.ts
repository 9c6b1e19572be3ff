// idle-memory: what the service occupies doing nothing, N seconds (20) after start
// (docs/BENCHMARKS.md, "Idle memory"). Measured twice, each time on a database and Redis prefix
// of its own that nothing else uses:
// - the four apps alone, as docker-compose.yml runs them: `node apps/<x>/dist/main.js`, one
//   process each, migrated beforehand (its `migrate` service), with the compose file's NODE_OPTIONS
//   (childNodeOptions: the same flags) and a HEALTH_PORT per worker; the clock starts once all
//   four answer /healthz;
// - `npm start`, whose whole process group (npm, the supervisor, the four apps) is added up; the
//   clock starts once the API answers.
// The figure is the sum of VmRSS (/proc/<pid>/status), which counts the node binary's shared
// pages once per process; the footprint (RssAnon of each, RssFile once) is reported beside it.
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@cronsvc/core';
import { childNodeOptions } from '@cronsvc/core/start-up';
import { sleep, type BenchContext } from '../harness/context.js';
import { processGroup, repoRoot, spawnManaged, type GroupProcess, type Managed } from '../harness/processes.js';
import { createDatabase, databaseUrl, dropDatabase, migrate, REDIS_URL } from '../harness/stores.js';
import { TARGETS } from '../lib/params.js';
import type { Figure } from '../lib/verdict.js';
import type { ScenarioResult } from './types.js';

const SCENARIO = 'idle-memory';
const APPS = ['api', 'scheduler', 'executor', 'notifier'] as const;
type App = (typeof APPS)[number];
const MiB = 1024 * 1024;
const START_TIMEOUT_MS = 120_000;

const mb = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const rssOf = (group: GroupProcess[]) => group.reduce((sum, p) => sum + p.rssBytes, 0);
/** What the processes take from the machine: each one's own memory, and the shared file pages once. */
const footprintOf = (group: GroupProcess[]) => group.reduce((sum, p) => sum + p.anonBytes, 0) + Math.max(0, ...group.map((p) => p.fileBytes));

async function untilAnswering(urls: string[], processes: Managed[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const dead = processes.find((p) => !p.alive());
    if (dead) throw new Error(`${dead.name} exited while starting:\n${dead.tail()}`);
    const answered = await Promise.all(urls.map((url) => fetch(url).then((r) => r.ok, () => false)));
    if (answered.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`not answering within ${START_TIMEOUT_MS} ms: ${urls.join(', ')}`);
    await sleep(200);
  }
}

/** A database of its own, and what every process of one measurement gets in its environment. */
async function freshStores(ctx: BenchContext, name: string): Promise<{ dbName: string; env: Record<string, string> }> {
  const dbName = `${ctx.dbName}_${name}`;
  await createDatabase(dbName);
  return {
    dbName,
    env: {
      ...ctx.args.serviceEnv,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      // Under the run's prefix, which the run deletes at its end.
      REDIS_PREFIX: `${ctx.redisPrefix}:${name}`,
      QUEUE_BACKEND: 'redis',
      SECRETS_ENCRYPTION_KEY: ctx.secretsKey,
      BOOTSTRAP_API_TOKEN: '',
    },
  };
}

async function appsAlone(ctx: BenchContext, idleSeconds: number): Promise<Record<App, GroupProcess[]>> {
  const { dbName, env } = await freshStores(ctx, 'idle_apps');
  const started: Managed[] = [];
  try {
    await migrate(env.DATABASE_URL);
    const ports = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await freePort()] as const))) as Record<App, number>;
    for (const app of APPS) {
      const own: Record<string, string> = app === 'api' ? { PORT: String(ports.api) } : { HEALTH_PORT: String(ports[app]) };
      const nodeOptions = [childNodeOptions(app), env.NODE_OPTIONS ?? ''].join(' ').trim();
      started.push(spawnManaged(`idle-${app}`, process.execPath, [path.join(repoRoot, 'apps', app, 'dist', 'main.js')], { ...env, ...own, NODE_OPTIONS: nodeOptions }));
    }
    await untilAnswering(APPS.map((app) => `http://127.0.0.1:${ports[app]}/healthz`), started);
    ctx.log(`idle-memory: the four apps alone answer; idle for ${idleSeconds} s`);
    await sleep(idleSeconds * 1000);
    const dead = started.find((p) => !p.alive());
    if (dead) throw new Error(`${dead.name} exited while idle:\n${dead.tail()}`);
    return Object.fromEntries(APPS.map((app, i) => [app, processGroup(started[i].pid)])) as Record<App, GroupProcess[]>;
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await dropDatabase(dbName);
  }
}

async function npmStart(ctx: BenchContext, idleSeconds: number): Promise<GroupProcess[]> {
  const { dbName, env } = await freshStores(ctx, 'idle_npm');
  const port = await freePort();
  const service = spawnManaged('idle-npm-start', 'npm', ['start'], { ...env, PORT: String(port) });
  try {
    await untilAnswering([`http://127.0.0.1:${port}/healthz`], [service]);
    ctx.log(`idle-memory: npm start answers; idle for ${idleSeconds} s`);
    await sleep(idleSeconds * 1000);
    if (!service.alive()) throw new Error(`npm start exited while idle:\n${service.tail()}`);
    return processGroup(service.pid);
  } finally {
    await service.stop();
    await dropDatabase(dbName);
  }
}

const described = (group: GroupProcess[]) => group.map((p) => ({ pid: p.pid, rssMb: mb(p.rssBytes), anonMb: mb(p.anonBytes), fileMb: mb(p.fileBytes), command: p.command.replaceAll(repoRoot, '.') }));

export async function idleMemory(ctx: BenchContext): Promise<ScenarioResult> {
  const { idleSeconds } = ctx.params.idleMemory;
  const loadBefore = os.loadavg();
  const alone = await appsAlone(ctx, idleSeconds);
  const group = await npmStart(ctx, idleSeconds);
  const aloneAll = APPS.flatMap((app) => alone[app]);
  const perApp = APPS.map((app) => `${app} ${mb(rssOf(alone[app]))}`).join(', ');
  const figures: Figure[] = [
    {
      scenario: SCENARIO,
      name: `four apps alone (docker-compose.yml), RSS ${idleSeconds} s after start`,
      value: mb(rssOf(aloneAll)),
      unit: 'MB',
      target: TARGETS.idleAppsAloneMb,
      note: `${perApp}; footprint ${mb(footprintOf(aloneAll))} MB`,
    },
    {
      scenario: SCENARIO,
      name: `npm start, RSS of its process group ${idleSeconds} s after start`,
      value: mb(rssOf(group)),
      unit: 'MB',
      target: TARGETS.idleNpmStartMb,
      note: `${group.length} processes; footprint ${mb(footprintOf(group))} MB`,
    },
  ];
  return {
    figures,
    parameters: { idleSeconds },
    details: {
      appsAlone: Object.fromEntries(APPS.map((app) => [app, described(alone[app])])),
      npmStart: described(group),
      loadAverageBefore: loadBefore,
      loadAverageAfter: os.loadavg(),
    },
  };
}
