import request from 'supertest';
import { openConsoleSession } from '@cronsvc/core';
import { ADMIN_TOKEN, aToken } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useApiApp } from './api-app.js';
import { csrfOf } from './console-fixture.js';

// The web console, the OpenAPI document and the queue dashboard are built on their first
// request (src/middleware/lazy-router.ts, src/routers/docs.router.ts). Each test takes an app
// that has answered nothing yet, as a process right after start, and checks that the first
// requests answer as every later one does.
const api = useApiApp();
const fresh = () => createApp(api.ctx.runtime);

it('answers the first requests to the console, several at once, with its sign-in page', async () => {
  const app = fresh();
  const pages = await Promise.all([1, 2, 3].map(() => request(app).get('/console/sign-in')));
  for (const page of pages) {
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(csrfOf(page.text)).not.toBe('');
  }
  const asset = /href="(\/console\/assets\/[^"]+\.css)"/.exec(pages[0].text)?.[1];
  expect((await request(app).get(asset ?? '/console/assets/none.css')).status).toBe(200);
});

it("checks the permission of the request that loads the console: a read token's session may not open the import page", async () => {
  const ws = await api.ctx.workspace('lazy-console');
  const { api_token: readToken } = await aToken(api.ctx.runtime, ws.id, { scope: 'read', name: 'reader' });
  const session = await openConsoleSession(api.ctx.runtime.pool, readToken);
  const cookie = `cronsvc_console=${session}`;

  const refused = await request(fresh()).get('/console/jobs/import').set('Cookie', cookie);
  expect(refused.status).toBe(403);
  expect(refused.text).toContain('Not allowed');
  const allowed = await request(fresh()).get('/console/jobs').set('Cookie', cookie);
  expect(allowed.status).toBe(200);
});

it('answers the first requests for the OpenAPI document and the reference page', async () => {
  const app = fresh();
  const [first, second] = await Promise.all([request(app).get('/v1/openapi.json'), request(app).get('/v1/openapi.json')]);
  expect(first.status).toBe(200);
  expect(first.body.openapi).toMatch(/^3\./);
  expect(second.text).toBe(first.text);
  const page = await request(fresh()).get('/docs');
  expect(page.status).toBe(200);
  expect(page.text).toContain('/docs/swagger-ui-bundle.js');
});

it('asks for the admin token before it builds the queue dashboard, and answers the first request that has it', async () => {
  const app = fresh();
  const refused = await request(app).get('/admin/queues');
  expect(refused.status).toBe(401);
  expect(refused.headers['x-frame-options']).toBe('DENY');
  const page = await request(app).get('/admin/queues').auth('ops', ADMIN_TOKEN);
  expect(page.status).toBe(200);
  expect(page.headers['x-frame-options']).toBe('DENY');
  expect(page.text).toContain('<div id="root">');
});
