import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../src/config/config.js';
import { createRuntime, type Runtime } from '../src/runtime/bootstrap.js';
import { serviceLogger } from '../src/runtime/start-up.js';
import { QUEUE_SCHEMA } from '../src/queues/queue-connection.js';
import { createWorkspace } from '../src/workspaces/workspaces.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { deleteRedisKeys, redisUrl, uniqueName } from './test-env.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ChildApp {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A workspace of a test: its id, its API token and the header that carries the token. */
export interface TestWorkspace {
  id: string;
  token: string;
  auth: { Authorization: string };
}

export interface TestContext {
  env: Record<string, string>;
  config: Config;
  runtime: Runtime;
  database: TestDatabase;
  /** A fresh workspace with an API token. */
  workspace(name?: string): Promise<TestWorkspace>;
  /** Deletes everything the queue store holds (Redis keys under the prefix, or BullMQ's job rows), as a lost Redis would; returns how many went. */
  loseQueues(): Promise<number>;
  /** Starts an app (`api`, `scheduler`, `executor`, `notifier`) as its own process, as `npm run start -w` would. */
  spawnApp(name: string, extraEnv?: Record<string, string>): ChildApp;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'test-admin-token';

/** Spawns a process whose output is kept, and which the test can stop or kill. */
export function spawnProcess(command: string, args: string[], env: Record<string, string>): ChildApp {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill(signal = 'SIGKILL') {
      // The whole process group, so nothing the process started outlives it.
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, signal);
      await exited;
    },
  };
}

/**
 * Everything one test file needs: its own database copied from the migrated template, its
 * own Redis key prefix, and config pointing at both. close() stops what it started.
 */
export async function createTestContext(overrides: Record<string, string> = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: uniqueName('test'),
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SCHEDULER_TICK_MS: '100',
    RECONCILE_INTERVAL_MS: '500',
    EXECUTION_LEASE_MS: '3000',
    ...(process.env.TEST_QUEUE_BACKEND ? { QUEUE_BACKEND: process.env.TEST_QUEUE_BACKEND } : {}),
    ...overrides,
  };
  const config = loadConfig(env);
  const runtime = createRuntime(config, serviceLogger(config, 'test'));
  const children: ChildApp[] = [];
  return {
    env,
    config,
    runtime,
    database,
    async workspace(name = 'test') {
      const created = await createWorkspace(runtime.db, config.secretsEncryptionKey, { name });
      return { id: created.id, token: created.api_token, auth: { Authorization: `Bearer ${created.api_token}` } };
    },
    async loseQueues() {
      if (config.queueBackend === 'postgres') {
        const { rowCount } = await runtime.pool.query(`DELETE FROM ${QUEUE_SCHEMA}.job`);
        return rowCount ?? 0;
      }
      return deleteRedisKeys(env.REDIS_PREFIX);
    },
    spawnApp(name, extraEnv = {}) {
      const app = spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'apps', name, 'src', 'main.ts')], { ...env, ...extraEnv });
      children.push(app);
      return app;
    },
    async close() {
      await Promise.all(children.map((c) => c.kill('SIGKILL')));
      await runtime.close();
      await deleteRedisKeys(env.REDIS_PREFIX);
      await database.drop();
    },
  };
}
