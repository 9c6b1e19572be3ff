import request from 'supertest';
import { aCronJob } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';

let auth: { Authorization: string };
let otherAuth: { Authorization: string };

const api = useApiApp();

beforeAll(async () => {
  ({ auth } = await api.ctx.workspace('mine'));
  otherAuth = (await api.ctx.workspace('theirs')).auth;
});

const post = (body: unknown, as = auth) => request(api.app).post('/v1/secrets').set(as).send(body as object);
const paths = (res: request.Response) => (res.body.error.details as { path: string }[]).map((d) => d.path);
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /v1/secrets', () => {
  it('creates a secret and answers with id, name and timestamps only, never the value', async () => {
    const res = await post({ name: 'STRIPE_KEY', value: 'sk_live_abcdef' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^sec_/), name: 'STRIPE_KEY' });
    expect(res.body.created_at).toMatch(ISO_MS);
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.text).not.toContain('sk_live_abcdef');
  });

  it('stores the value encrypted, not in the clear', async () => {
    const res = await post({ name: 'AT_REST', value: 'plain-text-value' });
    const row = await api.ctx.runtime.db.secret.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.value).not.toContain('plain-text-value');
    expect(row.value).toMatch(/^enc2:/);
  });

  it('accepts a value of exactly 64 KiB', async () => {
    const res = await post({ name: 'BIG', value: 'a'.repeat(64 * 1024) });
    expect(res.status).toBe(201);
  });

  it.each([
    ['a name starting with a digit', { name: '1KEY', value: 'v' }, 'name'],
    ['a name with a dash', { name: 'MY-KEY', value: 'v' }, 'name'],
    ['a name of 65 characters', { name: `A${'b'.repeat(64)}`, value: 'v' }, 'name'],
    ['a missing name', { value: 'v' }, 'name'],
    ['a missing value', { name: 'K' }, 'value'],
    ['an empty value', { name: 'K', value: '' }, 'value'],
    ['a value that is not a string', { name: 'K', value: 42 }, 'value'],
    ['a value over 64 KiB', { name: 'K', value: 'a'.repeat(64 * 1024 + 1) }, 'value'],
    ['a value over 64 KiB in UTF-8 bytes though not in characters', { name: 'K', value: 'é'.repeat(32 * 1024 + 1) }, 'value'],
    ['an unknown field', { name: 'K', value: 'v', description: 'x' }, 'description'],
  ])('rejects %s with validation_failed at its path', async (_what, body, path) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(paths(res)).toContain(path);
  });

  it('rejects a missing body', async () => {
    const res = await request(api.app).post('/v1/secrets').set(auth);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('does not echo the value in a validation error', async () => {
    const res = await post({ name: 'bad name', value: 'do-not-echo-me', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('do-not-echo-me');
  });

  it('answers 409 conflict for a name taken in the workspace, and allows it in another workspace', async () => {
    expect((await post({ name: 'TAKEN', value: 'one' })).status).toBe(201);
    const again = await post({ name: 'TAKEN', value: 'two' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect(again.text).not.toContain('two');
    expect((await post({ name: 'TAKEN', value: 'three' }, otherAuth)).status).toBe(201);
  });

  it('lets exactly one of several concurrent creates of one name through', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => post({ name: 'RACED', value: `v${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });
});

describe('GET /v1/secrets', () => {
  let page: { Authorization: string };
  beforeAll(async () => {
    const ws = await api.ctx.workspace('lister');
    page = { Authorization: `Bearer ${ws.token}` };
    for (const name of ['C_KEY', 'A_KEY', 'B_KEY']) await post({ name, value: `value-of-${name}` }, page);
  });

  it('lists the workspace secrets by name in the list envelope, without values', async () => {
    const res = await request(api.app).get('/v1/secrets').set(page);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(['A_KEY', 'B_KEY', 'C_KEY']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
    expect(res.text).not.toContain('value-of-');
  });

  it('pages with limit and offset', async () => {
    const res = await request(api.app).get('/v1/secrets?limit=1&offset=1').set(page);
    expect(res.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(['B_KEY']);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'colour=red'])('rejects ?%s with 400', async (query) => {
    const res = await request(api.app).get(`/v1/secrets?${query}`).set(page);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });
});

describe('GET, PATCH and DELETE /v1/secrets/:id', () => {
  let id: string;
  beforeEach(async () => {
    const res = await post({ name: `S_${Math.random().toString(36).slice(2)}`, value: 'original-value' });
    id = res.body.id;
  });

  it('reads one secret without its value', async () => {
    const res = await request(api.app).get(`/v1/secrets/${id}`).set(auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'name', 'updated_at']);
    expect(res.body.id).toBe(id);
  });

  it("answers 404 for another workspace's secret on every route, and leaves it alone", async () => {
    for (const res of [
      await request(api.app).get(`/v1/secrets/${id}`).set(otherAuth),
      await request(api.app).patch(`/v1/secrets/${id}`).set(otherAuth).send({ value: 'hijack' }),
      await request(api.app).delete(`/v1/secrets/${id}`).set(otherAuth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const row = await api.ctx.runtime.db.secret.findUniqueOrThrow({ where: { id } });
    const before = (await request(api.app).get(`/v1/secrets/${id}`).set(auth)).body;
    expect(row.updatedAt.toISOString()).toBe(before.updated_at);
  });

  it('replaces the value with PATCH {value}, re-encrypting it and moving updated_at', async () => {
    const before = await api.ctx.runtime.db.secret.findUniqueOrThrow({ where: { id } });
    await new Promise((r) => setTimeout(r, 5));
    const res = await request(api.app).patch(`/v1/secrets/${id}`).set(auth).send({ value: 'rotated-value' });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('rotated-value');
    expect(res.body.name).toBe(before.name);
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const after = await api.ctx.runtime.db.secret.findUniqueOrThrow({ where: { id } });
    expect(after.value).not.toBe(before.value);
    expect(after.value).not.toContain('rotated-value');
  });

  it.each([
    ['a name change', { name: 'RENAMED' }, 'name'],
    ['a name alongside the value', { value: 'v', name: 'RENAMED' }, 'name'],
    ['an empty body', {}, 'value'],
    ['an empty value', { value: '' }, 'value'],
  ])('refuses %s in a PATCH', async (_what, body, path) => {
    const res = await request(api.app).patch(`/v1/secrets/${id}`).set(auth).send(body);
    expect(res.status).toBe(400);
    expect(paths(res)).toContain(path);
  });

  it('deletes with 204, after which the secret is gone', async () => {
    expect((await request(api.app).delete(`/v1/secrets/${id}`).set(auth)).status).toBe(204);
    expect((await request(api.app).get(`/v1/secrets/${id}`).set(auth)).status).toBe(404);
    expect((await request(api.app).delete(`/v1/secrets/${id}`).set(auth)).status).toBe(404);
  });

  it('answers 404 for an unknown id', async () => {
    expect((await request(api.app).get('/v1/secrets/sec_nope').set(auth)).status).toBe(404);
    expect((await request(api.app).patch('/v1/secrets/sec_nope').set(auth).send({ value: 'v' })).status).toBe(404);
  });
});

describe('jobs referencing variables and secrets', () => {
  const postJob = (body: unknown) => request(api.app).post('/v1/jobs').set(auth).send(body as object);
  beforeAll(async () => {
    await post({ name: 'JOB_KEY', value: 'job-secret-value' });
  });

  it('accepts known variables and an existing secret, and stores the template, not the value', async () => {
    const res = await postJob(aCronJob({ request: { method: 'POST', headers: { 'X-Api-Key': '{{ secret.JOB_KEY }}' }, body: { id: '{{uuid}}', at: ['{{timestamp}}', '{{execution_id}}'] } } }));
    expect(res.status).toBe(201);
    expect(res.body.request.headers).toEqual({ 'X-Api-Key': '{{ secret.JOB_KEY }}' });
    const row = await api.ctx.runtime.db.job.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.stringify(row)).not.toContain('job-secret-value');
  });

  it('reports every unknown variable at its exact path', async () => {
    const res = await postJob(aCronJob({ request: { headers: { 'X-Api-Key': '{{api_key}}' }, body: { nested: { field: 'a {{ nope }}' }, list: ['x', 'y', '{{uuid}}{{UUID}}'] } } }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(paths(res).sort()).toEqual(['request.body.list[2]', 'request.body.nested.field', 'request.headers.X-Api-Key']);
  });

  it('reports a top-level array element as request.body[i]', async () => {
    const res = await postJob(aCronJob({ request: { method: 'POST', body: ['a', 'b', '{{bogus}}'] } }));
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(['request.body[2]']);
  });

  it("refuses a secret that does not exist in the workspace, including another workspace's", async () => {
    await post({ name: 'ONLY_THEIRS', value: 'theirs' }, otherAuth);
    const res = await postJob(aCronJob({ request: { headers: { A: '{{secret.NO_SUCH}}' }, body: { k: '{{secret.ONLY_THEIRS}}' } } }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'request.headers.A', message: expect.stringContaining('"NO_SUCH"') },
        { path: 'request.body.k', message: expect.stringContaining('"ONLY_THEIRS"') },
      ]),
    );
  });

  it('checks a PATCHed request the same way', async () => {
    const job = (await postJob(aCronJob())).body;
    const unknown = await request(api.app).patch(`/v1/jobs/${job.id}`).set(auth).send({ request: { headers: { H: '{{when}}' } } });
    expect(unknown.status).toBe(400);
    expect(paths(unknown)).toEqual(['request.headers.H']);
    const missing = await request(api.app).patch(`/v1/jobs/${job.id}`).set(auth).send({ request: { body: 'k={{secret.GONE}}', method: 'POST' } });
    expect(missing.status).toBe(400);
    expect(paths(missing)).toEqual(['request.body']);
    const fine = await request(api.app).patch(`/v1/jobs/${job.id}`).set(auth).send({ request: { headers: { H: '{{secret.JOB_KEY}}' } } });
    expect(fine.status).toBe(200);
  });

  // Needs job-schema.ts's url rule to validate placeholderSafeUrl(value) (the lead's change).
  it('accepts placeholders in the URL, host included, with private targets refused', async () => {
    await post({ name: 'HOST', value: 'api.example.com' });
    const guarded = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, allowPrivateTargets: false } });
    const res = await request(guarded).post('/v1/jobs').set(auth).send(aCronJob({ request: { url: 'https://{{secret.HOST}}/items/{{uuid}}?at={{ timestamp }}' } }));
    expect(res.status).toBe(201);
    expect(res.body.request.url).toBe('https://{{secret.HOST}}/items/{{uuid}}?at={{ timestamp }}');
  });

  it.each([
    ['an unknown variable', 'https://example.com/{{nope}}', '{{nope}}'],
    ['a placeholder standing for the whole URL, scheme included', '{{secret.JOB_KEY}}', ''],
    ['a loopback host around a placeholder', 'http://localhost/{{uuid}}', 'publicly reachable'],
  ])('refuses a URL with %s at request.url', async (_what, url, message) => {
    const guarded = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, allowPrivateTargets: false } });
    const res = await request(guarded).post('/v1/jobs').set(auth).send(aCronJob({ request: { url } }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([{ path: 'request.url', message: expect.stringContaining(message) }]));
  });
});
