import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import {
  aOneTimeJob, createTestDatabase, deleteRedisKeys, redisUrl, repoRoot, spawnProcess, startCluster, startCompiledService, startSentinel, startTargetServer, startTlsPostgres, startTlsRedis, productionEnv, uniqueName, waitFor, type CompiledService, type TargetServer, type TestDatabase
} from '@cronsvc/core/testing';

// The stores operators run past one machine, each a throwaway server of its own: PostgreSQL over
// TLS (sslmode in DATABASE_URL) with a pool size per process, Redis with a password over TLS
// (rediss://), Redis through Sentinel, and Redis Cluster with a hash-tagged prefix. Each runs the
// compiled service in production: a job created through the API is called once.

const TOKEN = `csk_${randomBytes(16).toString('hex')}`;
let target: TargetServer;

beforeAll(async () => {
  target = await startTargetServer();
});

afterAll(async () => {
  await target.close();
});

/** Creates a one_time job through the API and waits until its target has been called, once. */
async function jobCalledOnce(service: CompiledService): Promise<void> {
  const name = uniqueName('job');
  const res = await fetch(`${service.apis[0]}/v1/jobs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(aOneTimeJob({ name, request: { url: `${target.url}/${name}` } })),
  });
  expect(res.status).toBe(201);
  await waitFor(() => target.received.some((r) => r.url === `/${name}`), { timeoutMs: 30_000, what: () => `the job's call:\n${service.output()}` }).catch(async (error) => {
    const executions = await (await fetch(`${service.apis[0]}/v1/executions?limit=3`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    throw new Error(`${(error as Error).message}\n${executions}`);
  });
  const job = (await res.json()) as { id: string };
  await waitFor(
    async () => {
      const list = (await (await fetch(`${service.apis[0]}/v1/jobs/${job.id}/executions`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as { data: { status: string }[] };
      return list.data[0]?.status === 'succeeded';
    },
    { timeoutMs: 30_000, what: 'the execution to be recorded' },
  );
  expect(target.received.filter((r) => r.url === `/${name}`)).toHaveLength(1);
}

/** Starts one app with `env` and returns its exit code and output (it is expected to stop by itself). */
async function exitOf(name: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const app = spawnProcess(process.execPath, [path.join(repoRoot, 'apps', name, 'dist', 'main.js')], env);
  const timer = setTimeout(() => void app.kill('SIGKILL'), 30_000);
  const code = await app.exited;
  clearTimeout(timer);
  return { code, output: app.output() };
}

describe('PostgreSQL over TLS', () => {
  let server: Awaited<ReturnType<typeof startTlsPostgres>>;
  let prefix: string;
  let tlsUrl: string;

  beforeAll(async () => {
    server = await startTlsPostgres();
    prefix = uniqueName('test');
    tlsUrl = `postgresql://postgres@localhost:${server.port}/cron_service?sslmode=verify-full&sslrootcert=${server.caFile}`;
  });

  afterAll(async () => {
    await server.stop();
    await deleteRedisKeys(prefix);
  });

  it('migrates and runs with sslmode=verify-full, every connection encrypted and each process within DATABASE_POOL_SIZE', async () => {
    const migrate = spawnProcess(process.execPath, [path.join(repoRoot, 'scripts/dist/migrate.js')], { DATABASE_URL: tlsUrl });
    expect(await migrate.exited).toBe(0);
    // application_name, a connection parameter too, tells each process's connections apart.
    const env = productionEnv({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, DATABASE_POOL_SIZE: '3' });
    const service = await startCompiledService(env, { api: 1, scheduler: 1, executor: 1 }, (name) => ({
      DATABASE_URL: `${tlsUrl}&application_name=${name}`,
      ...(name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {}),
    }));
    try {
      await jobCalledOnce(service);
      // Many requests at once: the API's pool grows to its limit and no further.
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => fetch(`${service.apis[0]}/v1/jobs?limit=1`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.status)),
      );
      expect(new Set(answers)).toEqual(new Set([200]));
      const client = new pg.Client({ connectionString: tlsUrl.replace('/cron_service?', '/postgres?') });
      await client.connect();
      try {
        const { rows } = await client.query<{ application_name: string; ssl: boolean; connections: number }>(
          `SELECT a.application_name, s.ssl, count(*)::int AS connections FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
            WHERE a.datname = 'cron_service' AND a.application_name IN ('api', 'scheduler', 'executor') GROUP BY 1, 2`,
        );
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          expect(row.ssl).toBe(true);
          expect(row.connections).toBeLessThanOrEqual(3);
        }
        expect(rows.find((r) => r.application_name === 'api')?.connections).toBe(3);
      } finally {
        await client.end();
      }
    } finally {
      await service.stop();
    }
  });

  it('exits 78 naming DATABASE_URL when the URL asks for no TLS and the server requires it', async () => {
    const { code, output } = await exitOf('api', productionEnv({ DATABASE_URL: `postgresql://postgres@localhost:${server.port}/cron_service`, REDIS_URL: redisUrl, REDIS_PREFIX: prefix }));
    expect(code).toBe(78);
    expect(output).toMatch(/DATABASE_URL: cannot connect .*no encryption/);
  });

  it("exits 78 naming DATABASE_URL when the server's certificate is not signed by a trusted CA", async () => {
    const url = `postgresql://postgres@localhost:${server.port}/cron_service?sslmode=verify-full`;
    const { code, output } = await exitOf('api', productionEnv({ DATABASE_URL: url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix }));
    expect(code).toBe(78);
    expect(output).toMatch(/DATABASE_URL: cannot connect .*\(unable to verify the first certificate[;)]/);
  });
});

describe('Redis', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  // One key for the whole database: the workspace the first test bootstraps is encrypted with it.
  const key = randomBytes(32).toString('base64');
  const env = (redis: Record<string, string>) => productionEnv({ DATABASE_URL: database.url, REDIS_PREFIX: uniqueName('test'), SECRETS_ENCRYPTION_KEY: key, ...redis });
  const apiToken = (name: string): Record<string, string> => (name === 'api' ? { BOOTSTRAP_API_TOKEN: TOKEN } : {});

  it('runs over TLS with a password (rediss://), trusting a private CA through NODE_EXTRA_CA_CERTS', async () => {
    const password = randomBytes(12).toString('hex');
    const redis = await startTlsRedis(password);
    try {
      const url = `rediss://:${password}@localhost:${redis.port}`;
      const service = await startCompiledService(env({ REDIS_URL: url, NODE_EXTRA_CA_CERTS: redis.caFile }), { api: 1, scheduler: 1, executor: 1 }, apiToken);
      try {
        await jobCalledOnce(service);
      } finally {
        await service.stop();
      }
      const wrong = await exitOf('api', env({ REDIS_URL: `rediss://:not-${password}@localhost:${redis.port}`, NODE_EXTRA_CA_CERTS: redis.caFile }));
      expect(wrong.code).toBe(78);
      expect(wrong.output).toMatch(/REDIS_URL: cannot connect to rediss:\/\/:\*\*\*@localhost:\d+ .*WRONGPASS/);
    } finally {
      await redis.stop();
    }
  });

  it('runs through Sentinel, on the master it names', async () => {
    const { master, sentinel, stop } = await startSentinel('cronsvc-master');
    try {
      const prefix = uniqueName('test');
      const settings = { REDIS_URL: 'redis://placeholder', REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`, REDIS_SENTINEL_MASTER: 'cronsvc-master', REDIS_PREFIX: prefix };
      const service = await startCompiledService({ ...env(settings), REDIS_PREFIX: prefix }, { api: 1, scheduler: 1, executor: 1 }, apiToken);
      try {
        await jobCalledOnce(service);
      } finally {
        await service.stop();
      }
      const direct = new Redis({ port: master.port, host: '127.0.0.1' });
      expect((await direct.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
      direct.disconnect();
    } finally {
      await stop();
    }
  });

  it('runs on a Redis Cluster, every key of the service under the hash-tagged prefix {cronsvc}', async () => {
    const cluster = await startCluster();
    try {
      const settings = { REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`, REDIS_CLUSTER: 'true' };
      const service = await startCompiledService({ ...env(settings), REDIS_PREFIX: '' }, { api: 1, scheduler: 1, executor: 1 }, apiToken);
      try {
        await jobCalledOnce(service);
      } finally {
        await service.stop();
      }
      // All in one slot, so all on one node: the one serving {cronsvc}'s slot.
      const nodes = cluster.ports.map((port) => new Redis({ port, host: '127.0.0.1' }));
      const keys = (await Promise.all(nodes.map((n) => n.keys('*')))).map((k) => k.filter((key) => !key.startsWith('{cronsvc}')).length + (k.some((key) => key.startsWith('{cronsvc}')) ? 1000 : 0));
      for (const n of nodes) n.disconnect();
      expect(keys.filter((k) => k >= 1000)).toHaveLength(1);
      expect(keys.every((k) => k % 1000 === 0)).toBe(true);

      const untagged = await exitOf('api', env({ ...settings, REDIS_PREFIX: 'cronsvc' }));
      expect(untagged.code).toBe(78);
      expect(untagged.output).toMatch(/REDIS_PREFIX: must start with a hash tag in braces, such as \{cronsvc\}, when REDIS_CLUSTER=true/);
    } finally {
      await cluster.stop();
    }
  });
});
