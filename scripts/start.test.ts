import pg from 'pg';
import { Redis } from 'ioredis';
import { alive, aOneTimeJob, databaseUrl, descendantPids, redisUrl, spawnProcess, startTargetServer, testRun, uniqueName, waitFor, repoRoot } from '@cronsvc/core/testing';
import path from 'node:path';

// `npm start` as a user runs it: a database that does not exist yet, then Ctrl-C.
it('creates the database, migrates, serves and executes, then stops every process on SIGINT', async () => {
  const dbName = uniqueName(`cronsvc_test_${testRun}`);
  const prefix = uniqueName('test');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const target = await startTargetServer();
  const app = spawnProcess(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/start.ts')], {
    DATABASE_URL: databaseUrl(dbName),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    BOOTSTRAP_API_TOKEN: 'csk_start_test_token',
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'info',
  });
  const base = `http://127.0.0.1:${port}`;
  const auth = { Authorization: 'Bearer csk_start_test_token', 'Content-Type': 'application/json' };
  try {
    await waitFor(async () => (await fetch(`${base}/healthz`)).ok, { timeoutMs: 60_000, what: () => `the API (output: ${app.output()})` });
    const created = await fetch(`${base}/v1/jobs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify(aOneTimeJob({ name: 'hello', request: { url: `${target.url}/hello` } })),
    });
    expect(created.status).toBe(201);
    const job = (await created.json()) as { id: string };
    const exe = await waitFor(
      async () => {
        const list = (await (await fetch(`${base}/v1/jobs/${job.id}/executions`, { headers: auth })).json()) as { data: { status: string; attempts: unknown[] }[] };
        return list.data[0]?.status === 'succeeded' ? list.data[0] : undefined;
      },
      { timeoutMs: 30_000, what: 'the execution to succeed' },
    );
    expect(exe.attempts).toHaveLength(1);
    expect(target.received.map((r) => r.url)).toEqual(['/hello']);

    const pids = await descendantPids(app.child.pid!);
    expect(pids.length).toBeGreaterThanOrEqual(4);
    app.child.kill('SIGINT');
    expect(await app.exited).toBe(0);
    await waitFor(() => pids.every((pid) => !alive(pid)), { timeoutMs: 10_000, what: 'every app process to exit' });
    expect(app.output()).toMatch(/migrations applied/);
    expect(app.output()).not.toMatch(/\berror\b/i);
  } finally {
    await app.kill('SIGKILL').catch(() => undefined);
    await target.close();
    const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});
