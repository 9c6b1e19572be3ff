import request from 'supertest';
import { createApp } from '../src/app.js';
import { ADMIN_TOKEN, aCronJob } from '@cronsvc/core/testing';
import { ensureBootstrapWorkspace, hashToken } from '@cronsvc/core';
import { useApiApp } from './api-app.js';


const api = useApiApp();

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe('admin API and API tokens', () => {
  it('creates a workspace with a csk_ API token stored only as a hash', async () => {
    const res = await request(api.app).post('/admin/v1/workspaces').set(admin).send({ name: 'acme' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^wsp_/), name: 'acme', api_token: expect.stringMatching(/^csk_.{43,}$/) });
    const rows = await api.ctx.runtime.db.apiToken.findMany({ where: { workspaceId: res.body.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(hashToken(res.body.api_token));
    expect(JSON.stringify(rows)).not.toContain(res.body.api_token);
    const list = await request(api.app).get('/v1/jobs').set('Authorization', `Bearer ${res.body.api_token}`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [], total: 0, limit: 50, offset: 0 });
  });

  it('rejects a workspace without a name with validation_failed', async () => {
    const res = await request(api.app).post('/admin/v1/workspaces').set(admin).send({});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'name' })]);
  });

  it('issues and revokes extra tokens', async () => {
    const ws = await request(api.app).post('/admin/v1/workspaces').set(admin).send({ name: 'two' });
    const extra = await request(api.app).post(`/admin/v1/workspaces/${ws.body.id}/tokens`).set(admin);
    expect(extra.status).toBe(201);
    expect(extra.body).toMatchObject({ id: expect.stringMatching(/^tok_/), api_token: expect.stringMatching(/^csk_/) });
    const auth = { Authorization: `Bearer ${extra.body.api_token}` };
    expect((await request(api.app).get('/v1/jobs').set(auth)).status).toBe(200);
    expect((await request(api.app).delete(`/admin/v1/tokens/${extra.body.id}`).set(admin)).status).toBe(204);
    const after = await request(api.app).get('/v1/jobs').set(auth);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
    expect((await request(api.app).delete(`/admin/v1/tokens/${extra.body.id}`).set(admin)).status).toBe(404);
    expect((await request(api.app).post('/admin/v1/workspaces/wsp_nope/tokens').set(admin)).status).toBe(404);
  });

  it('keeps admin and API tokens apart: each is 401 on the other API', async () => {
    const ws = await request(api.app).post('/admin/v1/workspaces').set(admin).send({ name: 'three' });
    const asApi = await request(api.app).get('/v1/jobs').set(admin);
    expect(asApi.status).toBe(401);
    const asAdmin = await request(api.app).post('/admin/v1/workspaces').set('Authorization', `Bearer ${ws.body.api_token}`).send({ name: 'x' });
    expect(asAdmin.status).toBe(401);
    expect(asAdmin.body.error.code).toBe('unauthorized');
    expect((await request(api.app).get('/v1/jobs')).status).toBe(401);
    expect((await request(api.app).get('/v1/jobs').set('Authorization', 'Bearer csk_wrong')).status).toBe(401);
  });

  it('answers 401 on the admin API when ADMIN_TOKEN is not set', async () => {
    const off = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, adminToken: undefined } });
    const res = await request(off).post('/admin/v1/workspaces').set(admin).send({ name: 'x' });
    expect(res.status).toBe(401);
  });

  it('answers 404 for another workspace’s job', async () => {
    const a = await api.ctx.workspace('a');
    const b = await api.ctx.workspace('b');
    const created = await request(api.app).post('/v1/jobs').set(a.auth).send(aCronJob());
    expect(created.status).toBe(201);
    const asB = b.auth;
    for (const call of [
      request(api.app).get(`/v1/jobs/${created.body.id}`).set(asB),
      request(api.app).patch(`/v1/jobs/${created.body.id}`).set(asB).send({ name: 'x' }),
      request(api.app).delete(`/v1/jobs/${created.body.id}`).set(asB),
      request(api.app).post(`/v1/jobs/${created.body.id}/pause`).set(asB),
      request(api.app).post(`/v1/jobs/${created.body.id}/run-now`).set(asB),
      request(api.app).get(`/v1/jobs/${created.body.id}/executions`).set(asB),
    ]) {
      const res = await call;
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await request(api.app).get('/v1/jobs').set(asB)).body.total).toBe(0);
  });

  it('BOOTSTRAP_API_TOKEN makes workspace default accept that token, idempotently', async () => {
    const first = await ensureBootstrapWorkspace(api.ctx.runtime.db, api.ctx.config.secretsEncryptionKey, 'csk_bootstrap_test_token');
    const second = await ensureBootstrapWorkspace(api.ctx.runtime.db, api.ctx.config.secretsEncryptionKey, 'csk_bootstrap_test_token');
    expect(second).toBe(first);
    const ws = await api.ctx.runtime.db.workspace.findUnique({ where: { id: first } });
    expect(ws?.name).toBe('default');
    expect((await request(api.app).get('/v1/jobs').set('Authorization', 'Bearer csk_bootstrap_test_token')).status).toBe(200);
  });
});

describe('queue dashboard', () => {
  it('serves bull-board at /admin/queues behind basic auth with the admin token as password', async () => {
    expect((await request(api.app).get('/admin/queues')).status).toBe(401);
    expect((await request(api.app).get('/admin/queues').auth('ops', 'wrong')).status).toBe(401);
    const page = await request(api.app).get('/admin/queues').auth('ops', ADMIN_TOKEN);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<html/i);
    const queues = await request(api.app).get('/admin/queues/api/queues').auth('anyone', ADMIN_TOKEN);
    expect(queues.status).toBe(200);
    expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(['deliveries', 'executions']);
  });
});

describe('bootstrap token', () => {
  it('leaves one default workspace and one token when every app starts at once', async () => {
    const { db } = api.ctx.runtime;
    const key = api.ctx.config.secretsEncryptionKey;
    const ids = await Promise.all(Array.from({ length: 6 }, () => ensureBootstrapWorkspace(db, key, 'csk_concurrent_bootstrap')));
    expect(new Set(ids).size).toBe(1);
    expect(await db.apiToken.count({ where: { tokenHash: hashToken('csk_concurrent_bootstrap') } })).toBe(1);
    expect(await db.workspace.count({ where: { name: 'default' } })).toBe(1);
  });
});
