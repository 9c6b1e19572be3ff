import request from 'supertest';
import { pruneExecutions } from '@cronsvc/core';
import { ADMIN_TOKEN, aCronJob, aTriggerJob, httpStep, parsePrometheus } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// MAX_STORED_BYTES_PER_WORKSPACE: one workspace cannot fill the database with what it chooses to
// store (job definitions, secrets, trigger inputs), by whatever path, however many requests it
// sends at once; a trigger over it is answered as always and its input dropped and counted; the
// total follows deletes and retention, and other workspaces are not affected.

const LIMIT = 60_000;
const api = useApiApp({ MAX_STORED_BYTES_PER_WORKSPACE: String(LIMIT), PUBLIC_RATE_LIMIT_PER_MINUTE: '0' });

/** A cron job whose body is `bytes` characters. */
const jobOf = (name: string, bytes: number) => aCronJob({ name, request: { url: 'https://example.com/hook', method: 'POST', body: 'x'.repeat(bytes) } });

/** The workspace's kept total, and what its rows add up to: the two must always agree. */
async function totals(workspaceId: string): Promise<{ kept: number; rows: number }> {
  const { rows } = await api.ctx.runtime.pool.query<{ kept: string; rows: string }>(
    `SELECT coalesce((SELECT n FROM stored_bytes_totals WHERE workspace_id = $1), 0) AS kept,
            (SELECT coalesce(sum(stored_bytes), 0) FROM jobs WHERE workspace_id = $1)
          + (SELECT coalesce(sum(stored_bytes), 0) FROM secrets WHERE workspace_id = $1)
          + (SELECT coalesce(sum(stored_bytes), 0) FROM executions WHERE workspace_id = $1) AS rows`,
    [workspaceId],
  );
  return { kept: Number(rows[0].kept), rows: Number(rows[0].rows) };
}

async function droppedTriggerInputs(): Promise<number> {
  const res = await request(api.app).get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return parsePrometheus(res.text).value('cronsvc_trigger_inputs_dropped_total', { reason: 'stored_bytes_limit' }) ?? 0;
}

it('refuses the job that would pass the limit with 409 limit_exceeded, stores nothing of it, and takes one again after a delete', async () => {
  const { id, auth } = await api.ctx.workspace();
  const ids: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    const res = await request(api.app).post('/v1/jobs').set(auth).send(jobOf(`j${i}`, 10_000));
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const over = await request(api.app).post('/v1/jobs').set(auth).send(jobOf('one more', 10_000));
  expect(over.status).toBe(409);
  expect(over.body.error).toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/more than 60000 bytes .*\(MAX_STORED_BYTES_PER_WORKSPACE\)/) });
  expect(await api.ctx.runtime.db.job.count({ where: { workspaceId: id } })).toBe(5);
  // A small job still fits.
  expect((await request(api.app).post('/v1/jobs').set(auth).send(jobOf('small', 100))).status).toBe(201);

  expect((await request(api.app).delete(`/v1/jobs/${ids[0]}`).set(auth)).status).toBe(204);
  expect((await request(api.app).post('/v1/jobs').set(auth).send(jobOf('after delete', 9_000))).status).toBe(201);
  const { kept, rows } = await totals(id);
  expect(kept).toBe(rows);
  expect(kept).toBeLessThanOrEqual(LIMIT);
});

it('refuses a PATCH that grows a job past the limit, and takes one that shrinks it', async () => {
  const { id, auth } = await api.ctx.workspace();
  const job = await request(api.app).post('/v1/jobs').set(auth).send(jobOf('grows', 20_000));
  await request(api.app).post('/v1/jobs').set(auth).send(jobOf('other', 30_000));
  const grown = await request(api.app).patch(`/v1/jobs/${job.body.id}`).set(auth).send({ request: { body: 'y'.repeat(40_000) } });
  expect(grown.status).toBe(409);
  expect(grown.body.error.code).toBe('limit_exceeded');
  expect((await request(api.app).get(`/v1/jobs/${job.body.id}`).set(auth)).body.request.body).toHaveLength(20_000);
  const shrunk = await request(api.app).patch(`/v1/jobs/${job.body.id}`).set(auth).send({ request: { body: 'small' } });
  expect(shrunk.status).toBe(200);
  // Unchanged size: nothing to check, nothing refused (the scheduler's updates are of this kind).
  expect((await request(api.app).post(`/v1/jobs/${job.body.id}/pause`).set(auth)).status).toBe(200);
  const { kept, rows } = await totals(id);
  expect(kept).toBe(rows);
});

it('counts secrets: a create or a new value past the limit is a 409', async () => {
  const { id, auth } = await api.ctx.workspace();
  await request(api.app).post('/v1/jobs').set(auth).send(jobOf('big', 50_000));
  const secret = await request(api.app).post('/v1/secrets').set(auth).send({ name: 'small', value: 'v' });
  expect(secret.status).toBe(201);
  const tooBig = await request(api.app).post('/v1/secrets').set(auth).send({ name: 'big', value: 'v'.repeat(9_000) });
  expect(tooBig.status).toBe(409);
  expect(tooBig.body.error.code).toBe('limit_exceeded');
  const grown = await request(api.app).patch(`/v1/secrets/${secret.body.id}`).set(auth).send({ value: 'v'.repeat(9_000) });
  expect(grown.status).toBe(409);
  expect(await api.ctx.runtime.db.secret.count({ where: { workspaceId: id } })).toBe(1);
  expect((await request(api.app).delete(`/v1/secrets/${secret.body.id}`).set(auth)).status).toBe(204);
  const { kept, rows } = await totals(id);
  expect(kept).toBe(rows);
});

it('refuses the lines of a crontab import past the limit as line errors, and creates those before them', async () => {
  const { auth } = await api.ctx.workspace();
  await request(api.app).post('/v1/jobs').set(auth).send(jobOf('big', 58_500));
  const crontab = ['0 * * * * https://example.com/a', `5 * * * * https://example.com/${'b'.repeat(1_500)}`].join('\n');
  const res = await request(api.app).post('/v1/jobs/import').set(auth).send({ crontab });
  expect(res.status).toBe(201);
  expect(res.body.created).toHaveLength(1);
  expect(res.body.errors).toEqual([{ line: 2, text: expect.any(String), message: expect.stringMatching(/MAX_STORED_BYTES_PER_WORKSPACE/) }]);
});

describe('trigger inputs', () => {
  async function triggerJob(auth: Record<string, string>) {
    const res = await request(api.app).post('/v1/jobs').set(auth).send(aTriggerJob([httpStep('call', 'https://example.com/x')]));
    expect(res.status).toBe(201);
    return res.body as { id: string; webhook_token: string };
  }
  const trigger = (token: string, body: unknown) => request(api.app).post(`/v1/triggers/${token}`).send(body as object);

  it('answers a trigger over the limit 200 {"received": true}, creates nothing, and counts the dropped input', async () => {
    const { id, auth } = await api.ctx.workspace();
    const job = await triggerJob(auth);
    const before = await droppedTriggerInputs();
    const stored = await trigger(job.webhook_token, { payload: 'p'.repeat(25_000) });
    expect(stored.status).toBe(200);
    expect(await api.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(1);

    for (let i = 0; i < 3; i += 1) {
      const dropped = await trigger(job.webhook_token, { payload: 'p'.repeat(25_000) });
      expect(dropped.status).toBe(200);
      expect(dropped.body).toEqual({ received: true });
    }
    // The second fits (about 50,000 bytes in all); the two after it do not.
    expect(await api.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(2);
    expect((await droppedTriggerInputs()) - before).toBe(2);
    const { kept, rows } = await totals(id);
    expect(kept).toBe(rows);
  });

  it('stores exactly what fits when triggers of one workspace arrive together, in one batch with another workspace\'s', async () => {
    const a = await api.ctx.workspace();
    const b = await api.ctx.workspace();
    const [jobA, jobB] = await Promise.all([triggerJob(a.auth), triggerJob(b.auth)]);
    const before = await droppedTriggerInputs();
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => trigger(jobA.webhook_token, { payload: 'p'.repeat(9_000) })),
      ...Array.from({ length: 5 }, () => trigger(jobB.webhook_token, { payload: 'q' })),
    ]);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const storedA = await api.ctx.runtime.db.execution.count({ where: { jobId: jobA.id } });
    const { kept, rows } = await totals(a.id);
    expect(kept).toBe(rows);
    expect(kept).toBeLessThanOrEqual(LIMIT);
    // Room for six of them beside the job (each input is about 9,200 bytes with its headers), no fewer.
    expect(kept + 9_500).toBeGreaterThan(LIMIT);
    expect((await droppedTriggerInputs()) - before).toBe(20 - storedA);
    expect(await api.ctx.runtime.db.execution.count({ where: { jobId: jobB.id } })).toBe(5);
  });

  it('frees the room of inputs that retention prunes and of a deleted job\'s executions, and refuses a replay that would not fit', async () => {
    const { id, auth } = await api.ctx.workspace();
    const job = await triggerJob(auth);
    for (let i = 0; i < 2; i += 1) await trigger(job.webhook_token, { payload: 'p'.repeat(25_000) });
    const executions = await api.ctx.runtime.db.execution.findMany({ where: { jobId: job.id }, orderBy: { createdAt: 'asc' } });
    expect(executions).toHaveLength(2);
    const replay = await request(api.app).post(`/v1/executions/${executions[0].id}/replay`).set(auth);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe('limit_exceeded');

    // Retention deletes finished executions: their inputs no longer count.
    await api.ctx.runtime.pool.query(`UPDATE executions SET status = 'succeeded', finished_at = now(), created_at = now() - interval '40 days' WHERE id = $1`, [executions[0].id]);
    expect(await pruneExecutions(api.ctx.runtime, { olderThan: new Date(Date.now() - 30 * 86_400_000) })).toBe(1);
    let { kept, rows } = await totals(id);
    expect(kept).toBe(rows);
    expect((await request(api.app).post(`/v1/executions/${executions[1].id}/replay`).set(auth)).status).toBe(202);

    expect((await request(api.app).delete(`/v1/jobs/${job.id}`).set(auth)).status).toBe(204);
    ({ kept, rows } = await totals(id));
    expect(kept).toBe(rows);
    expect(kept).toBe(0);
  });
});

it('holds the limit exactly under concurrent creates, without touching other workspaces', async () => {
  const { id, auth } = await api.ctx.workspace();
  const other = await api.ctx.workspace();
  const answers = await Promise.all([
    ...Array.from({ length: 20 }, (_, i) => request(api.app).post('/v1/jobs').set(auth).send(jobOf(`c${i}`, 9_000))),
    request(api.app).post('/v1/jobs').set(other.auth).send(jobOf('other', 9_000)),
  ]);
  const statuses = answers.slice(0, 20).map((r) => r.status);
  // Each job is about 9,100 bytes: six fit in 60,000, a seventh does not.
  expect(statuses.filter((s) => s === 201)).toHaveLength(6);
  expect(statuses.filter((s) => s === 409)).toHaveLength(14);
  expect(answers[20].status).toBe(201);
  const { kept, rows } = await totals(id);
  expect(kept).toBe(rows);
  expect(kept).toBeLessThanOrEqual(LIMIT);
});
