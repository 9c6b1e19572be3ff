import path from 'node:path';
import pg from 'pg';
import { repoRoot, spawnProcess, type ChildApp } from './test-context.js';
import { databaseUrl, deleteRedisKeys, redisUrl, testRun, uniqueName } from './test-env.js';
import { freePort } from '../src/db/local-host.js';

export interface ServiceProcess {
  app: ChildApp;
  /** The API's address. */
  base: string;
  /** The service's database. */
  databaseUrl: string;
  /** Kills what is left of the service, drops its database and deletes its Redis keys. */
  close(): Promise<void>;
}

/**
 * `npm start` as a user runs it, on a database and a Redis prefix of its own (both removed by
 * close()), the API on a free port; `env` is added to (or overrides) that.
 */
export async function startService(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dbName = uniqueName(`cronsvc_test_${testRun}`);
  const prefix = uniqueName('test');
  const port = await freePort();
  const app = spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/start.ts')], {
    DATABASE_URL: databaseUrl(dbName),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    ...env,
  });
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    databaseUrl: databaseUrl(dbName),
    async close() {
      await app.kill('SIGKILL').catch(() => undefined);
      const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
      await deleteRedisKeys(prefix);
    },
  };
}
