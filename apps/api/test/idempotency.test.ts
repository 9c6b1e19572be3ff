import request from 'supertest';
import { aCronJob, aRecurringJob } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

const api = useApiApp();

const post = (auth: { Authorization: string }, key: string, body: unknown) =>
  request(api.app).post('/v1/jobs').set(auth).set('Idempotency-Key', key).send(body as object);

describe('POST /v1/jobs with an Idempotency-Key', () => {
  it('creates exactly one job from 20 simultaneous requests: one 201, nineteen 200 with the same id', async () => {
    const ws = await api.ctx.workspace('race');
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(ws.auth, 'race-key', aCronJob({ name: 'raced' }))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(await api.ctx.runtime.db.job.count({ where: { workspaceId: ws.id } })).toBe(1);
    const winner = answers.find((a) => a.status === 201)!;
    for (const answer of answers) expect(answer.body).toEqual(winner.body);
  });

  it('keeps keys apart per workspace: one key in two workspaces makes two jobs', async () => {
    const [a, b] = [await api.ctx.workspace('key-a'), await api.ctx.workspace('key-b')];
    const first = await post(a.auth, 'shared-key', aCronJob({ name: 'in a' }));
    const second = await post(b.auth, 'shared-key', aCronJob({ name: 'in b' }));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(second.body.name).toBe('in b');
    const other = await request(api.app).get(`/v1/jobs/${first.body.id}`).set(b.auth);
    expect(other.status).toBe(404);
  });

  it('returns the original job unchanged for a used key with a different body', async () => {
    const ws = await api.ctx.workspace('replay');
    const original = await post(ws.auth, 'once', aCronJob({ name: 'original' }));
    const changed = aRecurringJob({ name: 'changed', schedule: { every_n_minutes: 5 } });
    const again = await post(ws.auth, 'once', changed);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(original.body);
    expect((await request(api.app).get(`/v1/jobs/${original.body.id}`).set(ws.auth)).body).toEqual(original.body);
    expect(await api.ctx.runtime.db.job.count({ where: { workspaceId: ws.id } })).toBe(1);
  });
});
