import request from 'supertest';
import { aCronJob, aOneTimeJob } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

// MAX_JOBS_PER_WORKSPACE: one workspace cannot fill the service with jobs, whatever path it
// creates them by, however many requests it sends at once; other workspaces are not affected.

const MAX = 3;

const api = useApiApp({ MAX_JOBS_PER_WORKSPACE: String(MAX) });

const jobCount = (workspaceId: string) => api.ctx.runtime.db.job.count({ where: { workspaceId } });

it('refuses the job past the quota with 409 limit_exceeded, and takes one again after a delete', async () => {
  const { id, auth } = await api.ctx.workspace();
  const ids: string[] = [];
  for (let i = 0; i < MAX; i += 1) {
    const res = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: `j${i}` }));
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const over = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: 'one more' }));
  expect(over.status).toBe(409);
  expect(over.body.error).toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/limit of 3 jobs \(MAX_JOBS_PER_WORKSPACE\)/) });
  const oneTime = await request(api.app).post('/v1/jobs').set(auth).send(aOneTimeJob());
  expect(oneTime.status).toBe(409);
  expect(await api.ctx.runtime.db.execution.count({ where: { workspaceId: id } })).toBe(0);
  expect(await jobCount(id)).toBe(MAX);

  expect((await request(api.app).delete(`/v1/jobs/${ids[0]}`).set(auth)).status).toBe(204);
  expect((await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: 'after delete' }))).status).toBe(201);
  expect((await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: 'over again' }))).status).toBe(409);
});

it('answers a used Idempotency-Key with its job even at the quota', async () => {
  const { auth } = await api.ctx.workspace();
  const first = await request(api.app).post('/v1/jobs').set(auth).set('Idempotency-Key', 'k1').send(aCronJob({ name: 'keyed' }));
  expect(first.status).toBe(201);
  for (let i = 1; i < MAX; i += 1) await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: `j${i}` }));
  const again = await request(api.app).post('/v1/jobs').set(auth).set('Idempotency-Key', 'k1').send(aCronJob({ name: 'keyed' }));
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(first.body.id);
  expect((await request(api.app).post('/v1/jobs').set(auth).set('Idempotency-Key', 'k2').send(aCronJob({ name: 'new key' }))).status).toBe(409);
});

it('holds the quota exactly under concurrent creates, without touching other workspaces', async () => {
  const { id, auth } = await api.ctx.workspace();
  const other = await api.ctx.workspace();
  const answers = await Promise.all([
    ...Array.from({ length: 20 }, (_, i) => request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: `c${i}` }))),
    request(api.app).post('/v1/jobs').set(other.auth).send(aCronJob({ name: 'other' })),
  ]);
  const statuses = answers.slice(0, 20).map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(MAX);
  expect(statuses.filter((s) => s === 409)).toHaveLength(20 - MAX);
  expect(answers[20].status).toBe(201);
  expect(await jobCount(id)).toBe(MAX);
  const counter = await api.ctx.runtime.db.jobCount.findUniqueOrThrow({ where: { workspaceId: id } });
  expect(Number(counter.n)).toBe(MAX);
});

it('counts each job a crontab import creates; lines past the quota become line errors', async () => {
  const { id, auth } = await api.ctx.workspace();
  await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ name: 'existing' }));
  const crontab = ['0 * * * * https://example.com/a', 'bad line', '5 * * * * https://example.com/b', '10 * * * * https://example.com/c'].join('\n');
  const res = await request(api.app).post('/v1/jobs/import').set(auth).send({ crontab });
  expect(res.status).toBe(201);
  expect(res.body.created.map((j: { name: string }) => j.name)).toEqual(['0 * * * * https://example.com/a', '5 * * * * https://example.com/b']);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ line: 2 }),
    { line: 4, text: '10 * * * * https://example.com/c', message: expect.stringMatching(/limit of 3 jobs/) },
  ]);
  expect(await jobCount(id)).toBe(MAX);
});
