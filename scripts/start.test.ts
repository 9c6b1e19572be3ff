import {
  alive,
  aOneTimeJob,
  createTestDatabase,
  deleteRedisKeys,
  descendantPids,
  groupProcesses,
  redisUrl,
  spawnProcess,
  startService,
  startTargetServer,
  uniqueName,
  waitFor,
} from '@cronsvc/core/testing';
import { createLogger, createRuntime, ensureBootstrapWorkspace, freePort, loadConfig } from '@cronsvc/core';

const lines = (output: string) => output.split('\n').filter(Boolean);

// `npm start` as a user runs it: a database that does not exist yet, then Ctrl-C.
it('creates the database, migrates, serves and executes, then stops every process on SIGINT', async () => {
  const target = await startTargetServer();
  const service = await startService({ BOOTSTRAP_API_TOKEN: 'csk_start_test_token', ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' });
  const { app, base } = service;
  const auth = { Authorization: 'Bearer csk_start_test_token', 'Content-Type': 'application/json' };
  try {
    // Said at once, before the stores are even looked for.
    const first = await waitFor(() => lines(app.output())[0], { timeoutMs: 30_000, what: 'a first line' });
    expect(first).toMatch(/\[supervisor\] starting: migrating, starting 4 apps \(api, scheduler, executor, notifier\); the addresses follow once the API answers$/);
    // The address is printed once it answers: asked the moment it shows, it answers.
    await waitFor(() => /\[supervisor\] API: http:\/\/localhost:/.test(app.output()), { timeoutMs: 90_000, intervalMs: 20, what: () => `the API's address (output: ${app.output()})` });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const output = app.output();
    expect(output.indexOf('[api] api listening')).toBeGreaterThan(output.indexOf('migrations applied'));
    expect(output.indexOf('[supervisor] API: http://localhost:')).toBeGreaterThan(output.indexOf('[api] api listening'));

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
    expect(lines(app.output()).at(-1)).toMatch(/\[supervisor\] stopped \(exit 0\)$/);
  } finally {
    await service.close();
    await target.close();
  }
});

// What a shell sees: npm runs node through `exec`, so it waits for the supervisor, which waits
// for every app, and passes on its exit status. The database is one an earlier `npm run dev` used.
it('under npm, Ctrl-C to the process group: npm exits 0 once every app is gone, after the line that says it stopped', async () => {
  const database = await createTestDatabase();
  const prefix = uniqueName('test');
  const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: String(await freePort()), LOG_LEVEL: 'info' };
  const config = loadConfig(env);
  const earlier = createRuntime(config, createLogger({ level: 'silent', production: false, service: 'test' }), { dbPoolSize: 1 });
  await ensureBootstrapWorkspace(earlier.db, config.secretsEncryptionKey, 'dev-token');
  await earlier.close();
  const npm = spawnProcess('npm', ['start'], env);
  try {
    await waitFor(() => /\[supervisor\] web console: /.test(npm.output()), { timeoutMs: 120_000, what: () => `the addresses (output: ${npm.output()})` });
    // Without BOOTSTRAP_API_TOKEN, the dev-token of that earlier start is revoked, which the API says; it listens everywhere.
    expect(npm.output()).toMatch(/warn \[api\] revoked 1 API token\(s\) made by an earlier BOOTSTRAP_API_TOKEN .*: BOOTSTRAP_API_TOKEN is not set/);
    expect((await fetch(`http://127.0.0.1:${env.PORT}/v1/jobs`, { headers: { Authorization: 'Bearer dev-token' } })).status).toBe(401);
    expect(npm.output()).toContain(`(listening on 0.0.0.0:${env.PORT})`);
    // The supervisor and the four apps (tsx's esbuild helpers end with the app that started them).
    const service = (await groupProcesses(npm.child.pid!)).filter((p) => /scripts\/start\.ts|apps\/\w+\/src\/main\.ts/.test(p.command));
    expect(service).toHaveLength(5);
    expect((await groupProcesses(npm.child.pid!)).map((p) => p.command)).not.toContainEqual(expect.stringMatching(/^sh -c/));
    process.kill(-npm.child.pid!, 'SIGINT');
    expect(await npm.exited).toBe(0);
    expect(service.filter((p) => alive(p.pid))).toEqual([]);
    expect(lines(npm.output()).at(-1)).toMatch(/\[supervisor\] stopped \(exit 0\)$/);
  } finally {
    await npm.kill('SIGKILL').catch(() => undefined);
    await database.drop();
    await deleteRedisKeys(prefix);
  }
});
