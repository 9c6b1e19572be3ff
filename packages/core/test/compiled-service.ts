// The service as production runs it: each app a process of its own, `node apps/<name>/dist/main.js`
// (the test run's global set-up compiled it), with NODE_ENV=production.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort } from '../src/db/local-host.js';
import { repoRoot, spawnProcess, type ChildApp } from './test-context.js';
import { redisUrl } from './test-env.js';
import { waitFor } from './wait-for.js';

export type AppName = 'api' | 'scheduler' | 'executor' | 'notifier';

const STARTED: Record<AppName, RegExp> = { api: /api listening/, scheduler: /scheduler started/, executor: /executor started/, notifier: /notifier started/ };

/** Whether the process has said it started (an API: that it listens). */
export function hasStarted(entry: { name: AppName; app: ChildApp }): boolean {
  return STARTED[entry.name].test(entry.app.output());
}

export interface CompiledService {
  /** The base URL of each API process. */
  apis: string[];
  processes: { name: AppName; app: ChildApp }[];
  /** Every process's output (of processes restarted since, too), for failure messages. */
  output(): string;
  stop(): Promise<void>;
  /**
   * Starts the process at `index` of `processes` again, once it has exited, with the environment
   * it had (an API on its port), as a process manager restarts a crashed process; answers the new
   * process, which replaces the old one in `processes`. Waiting for its start is the caller's.
   */
  restart(index: number): ChildApp;
}

/** The environment every process of one deployment shares (one encryption key, one bootstrap token). */
export function productionEnv(env: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'production',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'info',
    NODE_OPTIONS: '',
    ...env,
  };
}

/**
 * The queue backend of this test run: BullMQ's PostgreSQL backend when the file runs in the
 * project "queues on postgres" (jest.config.ts), whose set-up sets TEST_QUEUE_BACKEND; Redis otherwise.
 */
export const testQueueBackend: 'redis' | 'postgres' = process.env.TEST_QUEUE_BACKEND === 'postgres' ? 'postgres' : 'redis';

/** The environment that puts a compiled service's queues there: the shared Redis under `prefix`, or the service's database. */
export function queueEnv(prefix: string): Record<string, string> {
  return testQueueBackend === 'postgres' ? { QUEUE_BACKEND: 'postgres' } : { QUEUE_BACKEND: 'redis', REDIS_URL: redisUrl, REDIS_PREFIX: prefix };
}

/**
 * Starts `counts[name]` processes of each app with `env` (plus a PORT per API and `perApp`'s
 * variables) and waits until each says it started. The API processes start first, so that one of
 * them applies BOOTSTRAP_API_TOKEN before the others look for it.
 */
export async function startCompiledService(
  env: Record<string, string>,
  counts: Partial<Record<AppName, number>>,
  perApp: (name: AppName, index: number) => Record<string, string> = () => ({}),
): Promise<CompiledService> {
  const processes: { name: AppName; app: ChildApp }[] = [];
  // How to start each process of `processes` again, and what the ones it replaced wrote.
  const launchers: (() => ChildApp)[] = [];
  const retired: string[] = [];
  const apis: string[] = [];
  const output = () => [...retired, ...processes.map((p) => `--- ${p.name}\n${p.app.output()}`)].join('\n');
  const service: CompiledService = {
    apis,
    processes,
    output,
    async stop() {
      await Promise.all(processes.map((p) => p.app.kill('SIGKILL').catch(() => undefined)));
    },
    restart(index) {
      const { name, app } = processes[index];
      if (app.child.exitCode === null && app.child.signalCode === null) throw new Error(`${name} ${app.child.pid} is still running`);
      retired.push(`--- ${name} (exited ${app.child.exitCode ?? app.child.signalCode})\n${app.output()}`);
      processes[index] = { name, app: launchers[index]() };
      return processes[index].app;
    },
  };
  const start = async (name: AppName, index: number) => {
    const extra: Record<string, string> = { ...perApp(name, index) };
    if (name === 'api') {
      const port = await freePort();
      extra.PORT = String(port);
      apis.push(`http://127.0.0.1:${port}`);
    }
    const launch = () => spawnProcess(process.execPath, [path.join(repoRoot, 'apps', name, 'dist', 'main.js')], { ...env, ...extra });
    launchers.push(launch);
    processes.push({ name, app: launch() });
  };
  try {
    for (let i = 0; i < (counts.api ?? 0); i++) await start('api', i);
    await waitFor(() => processes.every(hasStarted), { timeoutMs: 60_000, what: () => `the API to start:\n${output()}` });
    for (const name of ['scheduler', 'executor', 'notifier'] as const) for (let i = 0; i < (counts[name] ?? 0); i++) await start(name, i);
    await waitFor(
      () => {
        const dead = processes.find((p) => p.app.child.exitCode !== null);
        if (dead) throw new Error(`${dead.name} exited with ${dead.app.child.exitCode}`);
        return processes.every(hasStarted);
      },
      { timeoutMs: 90_000, what: () => `every process to start:\n${output()}` },
    );
    return service;
  } catch (error) {
    await service.stop();
    throw error;
  }
}
