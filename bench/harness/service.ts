// The service under test, started from the working tree as separate processes, the way
// `npm start` runs them in production: node apps/<name>/dist/main.js, compiled by `npm run build`.
import { catalog, createQueuePool, freePort, openQueue, type QueueBackendName, type QueueConnection } from '@cronsvc/core';
import { childNodeOptions } from '@cronsvc/core/start-up';
import { Redis } from 'ioredis';
import path from 'node:path';
import { repoRoot, spawnManaged, type Managed } from './processes.js';
import { REDIS_URL } from './stores.js';

export interface ServiceOptions {
  databaseUrl: string;
  redisPrefix: string;
  apiToken: string;
  secretsKey: string;
  /** Tuning variables (--set), passed to every process. */
  extraEnv: Record<string, string>;
  executors: number;
  /** Where the queues live: Redis (REDIS_URL, the run's prefix) or BullMQ's PostgreSQL backend in the run's database. */
  queueBackend: QueueBackendName;
  /** Directory for a .cpuprofile per process (bench/tools/cpu-profile.mjs); unset: no profiling. */
  profileDir?: string;
}

export interface Service {
  port: number;
  baseUrl: string;
  env: Record<string, string>;
  api: Managed;
  scheduler: Managed;
  executors: Managed[];
  notifier: Managed;
  all(): Managed[];
  addExecutor(): Promise<Managed>;
  removeExecutor(executor: Managed): Promise<void>;
  /** Fails with every process's last output if one of them has died. */
  assertAlive(): void;
  stop(): Promise<void>;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, processes: () => Managed[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const p of processes()) {
      if (!p.alive()) throw new Error(`${p.name} exited while waiting for ${what}:\n${p.tail()}`);
    }
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${processes().map((p) => `--- ${p.name}\n${p.tail()}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}


export async function startService(o: ServiceOptions): Promise<Service> {
  const port = await freePort();
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: o.redisPrefix,
    QUEUE_BACKEND: o.queueBackend,
    PORT: String(port),
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'warn',
    BOOTSTRAP_API_TOKEN: o.apiToken,
    SECRETS_ENCRYPTION_KEY: o.secretsKey,
    // The footprint scenario stores a million schedules in the one workspace of the bench.
    MAX_JOBS_PER_WORKSPACE: '100000000',
    // The workflows scenario posts thousands of triggers to one token at once: it measures the
    // service, not its limit on public tokens.
    PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
    // The notifications scenario sends 20,000 messages a minute from its one workspace on purpose.
    DELIVERY_RATE_LIMIT_PER_MINUTE: '10000000',
    ...o.extraEnv,
  };
  // Only the API applies BOOTSTRAP_API_TOKEN: when every app starts at once with it, their
  // upserts of the token race on api_tokens_token_hash_key and the losers exit at start-up.
  const profiling = (label: string): Record<string, string> =>
    o.profileDir
      ? { NODE_OPTIONS: `--import ${path.join(repoRoot, 'bench/tools/cpu-profile.mjs')}`, BENCH_PROFILE_DIR: o.profileDir, BENCH_PROFILE_NAME: label }
      : {};
  // The compiled apps, with the node options `npm start`'s supervisor gives its children, as
  // production runs them (the bench builds first: bench/run.ts).
  const spawnApp = (name: 'api' | 'scheduler' | 'executor' | 'notifier', label: string = name) =>
    spawnManaged(label, process.execPath, [path.join(repoRoot, 'apps', name, 'dist', 'main.js')], {
      ...env,
      ...(name === 'api' ? {} : { BOOTSTRAP_API_TOKEN: '' }),
      ...profiling(label),
      NODE_OPTIONS: [childNodeOptions(name), profiling(label).NODE_OPTIONS ?? ''].join(' ').trim(),
    });
  const queueConnection: QueueConnection =
    o.queueBackend === 'redis'
      ? { backend: 'redis', redis: new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }), prefix: o.redisPrefix }
      : { backend: 'postgres', pool: createQueuePool(o.databaseUrl, 2) };
  // How many BullMQ workers are connected to a queue (BullMQ names their connections, on either backend).
  const watched = new Map<string, ReturnType<typeof openQueue>>();
  const workerCount = async (queue: string): Promise<number> => {
    if (!watched.has(queue)) watched.set(queue, openQueue(queue, queueConnection));
    return (await watched.get(queue)!.getWorkers()).length;
  };
  let executorSeq = 0;
  const service: Service = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    env,
    // The API first: it applies the bootstrap token; the others start while it boots.
    api: spawnApp('api'),
    scheduler: spawnApp('scheduler'),
    executors: [],
    notifier: spawnApp('notifier'),
    all() {
      return [this.api, this.scheduler, ...this.executors, this.notifier];
    },
    async addExecutor() {
      const before = await workerCount(catalog.execution.queue);
      const executor = spawnApp('executor', `executor-${++executorSeq}`);
      this.executors.push(executor);
      await waitFor(`executor-${executorSeq}`, async () => (await workerCount(catalog.execution.queue)) > before, 60_000, () => [executor]);
      return executor;
    },
    async removeExecutor(executor) {
      this.executors = this.executors.filter((e) => e !== executor);
      await executor.stop();
    },
    assertAlive() {
      const dead = this.all().filter((p) => !p.alive());
      if (dead.length > 0) throw new Error(`service process exited: ${dead.map((p) => `${p.name}\n${p.tail()}`).join('\n')}`);
    },
    async stop() {
      await Promise.all(this.all().map((p) => p.stop()));
      await Promise.all([...watched.values()].map((q) => q.close()));
      if (queueConnection.backend === 'redis') queueConnection.redis.disconnect();
      else await queueConnection.pool.end();
    },
  };
  try {
    const all = () => service.all();
    await waitFor('api /healthz', async () => (await fetch(`${service.baseUrl}/healthz`)).ok, 90_000, all);
    // The notifier consumes every queue but the execution queue (which queues exactly is its business).
    const notifierQueues = Object.values(catalog).map((q) => q.queue).filter((q) => q !== catalog.execution.queue);
    const notifierWorkers = async () => (await Promise.all(notifierQueues.map((q) => workerCount(q)))).reduce((a, b) => a + b, 0);
    await waitFor('notifier worker', async () => (await notifierWorkers()) >= 1, 90_000, all);
    for (let i = 0; i < o.executors; i++) await service.addExecutor();
    return service;
  } catch (error) {
    await service.stop();
    throw error;
  }
}
