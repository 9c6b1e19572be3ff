import request from 'supertest';
import { ADMIN_TOKEN, aCronJob, aMonitorBody } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { loadLazyRouters, useApiApp } from './api-app.js';
import { routesOf } from './routes.js';

// What a newcomer gets wrong first, answered with what to do about it.

let auth: { Authorization: string };
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

const api = useApiApp();

beforeAll(async () => {
  ({ auth } = await api.ctx.workspace());
});

const send = (method: string, path: string) => request(api.app)[method.toLowerCase() as 'get'](path).set(path.startsWith('/admin') ? admin : auth);

describe('415 unsupported_media_type', () => {
  it('answers a JSON route given a body that is not JSON, naming the type it wants', async () => {
    // What `curl -d '{...}'` sends without -H 'Content-Type: application/json'.
    const res = await request(api.app).post('/v1/jobs').set(auth).type('form').send(JSON.stringify(aCronJob()));
    expect(res.status).toBe(415);
    expect(res.body.error).toEqual({
      code: 'unsupported_media_type',
      message: 'the request body must be JSON: send it with Content-Type: application/json (not application/x-www-form-urlencoded)',
    });
    const plain = await request(api.app).patch('/v1/jobs/job_x').set(auth).set('Content-Type', 'text/plain').send('{"name":"x"}');
    expect(plain.status).toBe(415);
    const admins = await request(api.app).post('/admin/v1/workspaces').set(admin).set('Content-Type', 'text/plain').send('{"name":"x"}');
    expect(admins.status).toBe(415);
  });

  it('takes JSON, a +json type, and requests without a body', async () => {
    expect((await request(api.app).post('/v1/jobs').set(auth).send(aCronJob())).status).toBe(201);
    expect((await request(api.app).post('/v1/jobs').set(auth).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(aCronJob()))).status).toBe(201);
    const job = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob());
    expect((await request(api.app).post(`/v1/jobs/${job.body.id}/run-now`).set(auth)).status).toBe(202);
  });
});

describe('405 method_not_allowed', () => {
  it('answers a method a known path does not have, with Allow', async () => {
    const res = await request(api.app).put('/v1/jobs/job_abc').set(auth).send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH, DELETE');
    expect(res.body.error).toEqual({ code: 'method_not_allowed', message: 'PUT is not allowed on /v1/jobs/job_abc; use GET, PATCH, DELETE' });
    const collection = await request(api.app).delete('/v1/jobs').set(auth);
    expect(collection.status).toBe(405);
    expect(collection.headers.allow).toBe('POST, GET');
  });

  it('answers 405 under public and admin prefixes too, and 404 for a path that is not there at all', async () => {
    const ping = await request(api.app).put('/v1/ping/some-token');
    expect(ping.status).toBe(405);
    expect(ping.headers.allow).toBe('GET, POST');
    const adminRes = await request(api.app).get('/admin/v1/workspaces').set(admin);
    expect(adminRes.status).toBe(405);
    expect(adminRes.headers.allow).toBe('POST');
    const nothing = await request(api.app).get('/v1/nothing-here').set(auth);
    expect(nothing.status).toBe(404);
    expect(nothing.body.error.code).toBe('not_found');
  });
});

describe('NUL in a path id or a query filter', () => {
  // The console's routes load on first use: load them, so every route is walked.
  beforeAll(() => loadLazyRouters(api.app));

  it('answers every route with a NUL id with a 4xx, never a 500', async () => {
    const failures: string[] = [];
    for (const [method, pattern] of routesOf(api.app)) {
      if (!pattern.includes(':')) continue;
      const path = pattern.replace(/:[a-z_]+/g, '%00x');
      const res = await send(method, path).send({});
      const expected = pattern.startsWith('/v1/triggers/') ? 200 : 404;
      if (res.status !== expected) failures.push(`${method} ${path}: ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers every list filter holding NUL with a 400 naming the filter, and no route with a 500', async () => {
    const filters = ['state', 'kind', 'name', 'status', 'job_name', 'sort', 'order', 'from', 'to', 'limit', 'offset', 'event', 'job_id', 'before'];
    const failures: string[] = [];
    let refused = 0;
    for (const [method, pattern] of routesOf(api.app)) {
      // The API's own lists; the web console's pages answer its sign-in redirect first (its tests cover them).
      if (method !== 'GET' || pattern.includes(':') || !pattern.startsWith('/v1/')) continue;
      for (const filter of filters) {
        const res = await send('GET', `${pattern}?${filter}=a%00`);
        // Routes that take no filters ignore them (200); every other answer is a 400 at the filter.
        if (res.status === 400 && res.body.error.details?.some((d: { path: string }) => d.path === filter)) refused += 1;
        else if (res.status !== 200) failures.push(`GET ${pattern}?${filter}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(refused).toBeGreaterThan(50);
  });

  it('answers a NUL in a body id or name with a 400 at its path', async () => {
    const bodies: [string, string, unknown, string][] = [
      ['POST', '/v1/dlq/replay-batch', { ids: ['exe_\u0000'] }, 'ids[0]'],
      ['POST', '/v1/dlq/replay-batch', { job_id: 'job_\u0000' }, 'job_id'],
      ['POST', '/v1/dlq/purge', { job_id: 'job_\u0000' }, 'job_id'],
      ['POST', '/v1/jobs', aCronJob({ name: 'a\u0000' }), 'name'],
      ['POST', '/v1/secrets', { name: 'K', value: 'v\u0000' }, 'value'],
      ['POST', '/v1/monitors', aMonitorBody({ name: 'm\u0000' }), 'name'],
      ['POST', '/admin/v1/workspaces', { name: 'w\u0000' }, 'name'],
    ];
    for (const [method, path, body, field] of bodies) {
      const res = await send(method, path).send(body as object);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error.details).toContainEqual({ path: field, message: 'must not contain a NUL character' });
    }
  });
});

describe('validation errors name only the wrong fields', () => {
  it('reports an unknown kind as the kind alone', async () => {
    const res = await request(api.app).post('/v1/jobs').set(auth).send(aCronJob({ kind: 'hourly' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_failed',
      message: 'kind: must be one of recurring, cron, scheduled, one_time, workflow, webhook_trigger',
      details: [{ path: 'kind', message: 'must be one of recurring, cron, scheduled, one_time, workflow, webhook_trigger' }],
    });
  });

  it('reports a missing kind alone, though the request it would need is given', async () => {
    const { kind: _kind, ...noKind } = aCronJob();
    const res = await request(api.app).post('/v1/jobs').set(auth).send(noKind);
    expect(res.body.error.details).toEqual([{ path: 'kind', message: 'is required' }]);
  });

  it('writes every problem as "<path>: <what is wrong>", without the path twice or Joi phrasing', async () => {
    const res = await request(api.app)
      .post('/v1/jobs')
      .set(auth)
      .send(aCronJob({ name: 5, request: { timeout_seconds: 2 ** 60 }, retry_policy: { max_attempts: 0 } }));
    expect(res.body.error.message).toBe('name: must be a string; request.timeout_seconds: is out of range; retry_policy.max_attempts: must be at least 1');
  });

  it('names ALLOW_PRIVATE_TARGETS when a private target is refused', async () => {
    const app = createApp({ ...api.ctx.runtime, config: { ...api.ctx.config, allowPrivateTargets: false } });
    const res = await request(app).post('/v1/jobs').set(auth).send(aCronJob({ request: { url: 'http://localhost:8080/' } }));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'request.url', message: expect.stringContaining('ALLOW_PRIVATE_TARGETS=true') }]);
  });
});
