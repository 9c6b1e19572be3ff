import { alive, aOneTimeJob, descendantPids, startService, startTargetServer, waitFor } from '@cronsvc/core/testing';

// `npm start` as a user runs it: a database that does not exist yet, then Ctrl-C.
it('creates the database, migrates, serves and executes, then stops every process on SIGINT', async () => {
  const target = await startTargetServer();
  const service = await startService({ BOOTSTRAP_API_TOKEN: 'csk_start_test_token', ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' });
  const { app, base } = service;
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
    await service.close();
    await target.close();
  }
});
