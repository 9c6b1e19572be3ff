import { createHash } from 'node:crypto';
import request from 'supertest';
import { ADMIN_TOKEN } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { csrfOf, useConsole } from './console-fixture.js';

// Signing in to the web console and what a session is: a random id in an HttpOnly, SameSite=Strict
// cookie, stored only as a hash, ended by sign-out, expiry or the token's deletion.
const f = useConsole({ browser: false });

const cookieNamed = (res: request.Response, name: string) => ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const sessionRows = () => f.ctx.runtime.pool.query<{ id_hash: string; workspace_id: string; expires_at: Date }>('SELECT id_hash, workspace_id, expires_at FROM console_sessions');

async function signInForm(agent: request.Agent) {
  const page = await agent.get('/console/sign-in');
  expect(page.status).toBe(200);
  return csrfOf(page.text);
}

it('shows the sign-in form with an "API token" field and a "Sign in" button', async () => {
  const res = await request(f.app).get('/console/sign-in');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/<label for="token">API token<\/label>/);
  expect(res.text).toMatch(/<button type="submit" class="primary">Sign in<\/button>/);
  expect(cookieNamed(res, 'cronsvc_console_sign_in')).toMatch(/HttpOnly; SameSite=Strict$/);
});

it('sends a browser without a session to the sign-in page, and back where it was going afterwards', async () => {
  const res = await request(f.app).get('/console/executions?status=failed');
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/console/sign-in?next=%2Fconsole%2Fexecutions%3Fstatus%3Dfailed');

  const agent = request.agent(f.app);
  const csrf = await signInForm(agent);
  const signedIn = await agent.post('/console/sign-in').type('form').send({ _csrf: csrf, token: f.token, next: '/console/executions?status=failed' });
  expect(signedIn.headers.location).toBe('/console/executions?status=failed');
  // Only the console's own pages: never another site.
  const elsewhere = request.agent(f.app);
  const formCsrf = await signInForm(elsewhere);

  const again = await elsewhere.post('/console/sign-in').type('form').send({ _csrf: formCsrf, token: f.token, next: '//evil.example/console/' });
  expect(again.headers.location).toBe('/console/jobs');
});

it('refuses a wrong token on the form, with no session', async () => {
  const agent = request.agent(f.app);
  const before = (await sessionRows()).rows.length;
  const formCsrf = await signInForm(agent);

  const res = await agent.post('/console/sign-in').type('form').send({ _csrf: formCsrf, token: 'csk_wrong' });
  expect(res.status).toBe(400);
  expect(res.text).toContain('That is not a valid API token.');
  expect(res.text).toContain('aria-invalid="true"');
  expect(res.text).not.toContain('csk_wrong');
  expect(cookieNamed(res, 'cronsvc_console')).toBeUndefined();
  expect((await sessionRows()).rows.length).toBe(before);
  expect((await agent.get('/console/jobs')).status).toBe(303);
});

it('refuses a sign-in that does not come from its own form (login CSRF)', async () => {
  const res = await request(f.app).post('/console/sign-in').type('form').send({ _csrf: 'x'.repeat(43), token: f.token });
  expect(res.status).toBe(403);
  expect(cookieNamed(res, 'cronsvc_console')).toBeUndefined();
});

it('starts a session whose cookie is HttpOnly, SameSite=Strict and a random id stored only as its hash', async () => {
  const agent = request.agent(f.app);
  const formCsrf = await signInForm(agent);

  const res = await agent.post('/console/sign-in').type('form').send({ _csrf: formCsrf, token: f.token });
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/console/jobs');
  const cookie = cookieNamed(res, 'cronsvc_console') as string;
  expect(cookie).toMatch(/^cronsvc_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/console; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
  const id = /^cronsvc_console=([^;]+)/.exec(cookie)![1];
  expect(id).not.toContain(f.token);
  const { rows } = await sessionRows();
  const hash = createHash('sha256').update(id).digest('hex');
  expect(rows.map((r) => r.id_hash)).toContain(hash);
  expect(JSON.stringify(rows)).not.toContain(id);
  const row = rows.find((r) => r.id_hash === hash)!;
  expect(row.workspace_id).toBe(f.workspaceId);
  expect(row.expires_at.getTime() - Date.now()).toBeGreaterThan(11.9 * 3600_000);

  const jobs = await agent.get('/console/jobs');
  expect(jobs.status).toBe(200);
  expect(jobs.text).not.toContain(f.token);
});

it('marks the cookies Secure when the service is reached over https', async () => {
  const app = createApp({ ...f.ctx.runtime, config: { ...f.ctx.runtime.config, publicBaseUrl: 'https://cron.example.com' } });
  const form = await request(app).get('/console/sign-in');
  const signInCookie = cookieNamed(form, 'cronsvc_console_sign_in') as string;
  expect(signInCookie).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
  const res = await request(app).post('/console/sign-in').set('Cookie', signInCookie.split(';')[0]).type('form').send({ _csrf: csrfOf(form.text), token: f.token });
  expect(cookieNamed(res, 'cronsvc_console')).toMatch(/; HttpOnly; Secure; SameSite=Strict$/);
});

it('ends the session on the server at sign-out: the old cookie no longer works', async () => {
  const agent = request.agent(f.app);
  const formCsrf = await signInForm(agent);

  const res = await agent.post('/console/sign-in').type('form').send({ _csrf: formCsrf, token: f.token });
  const cookie = /^cronsvc_console=([^;]+)/.exec(cookieNamed(res, 'cronsvc_console') as string)![1];
  const csrf = csrfOf((await agent.get('/console/jobs')).text);
  const before = (await sessionRows()).rows.length;
  const out = await agent.post('/console/sign-out').type('form').send({ _csrf: csrf });
  expect(out.status).toBe(303);
  expect(out.headers.location).toBe('/console/sign-in?signed_out=1');
  expect((await sessionRows()).rows.length).toBe(before - 1);
  // The cookie as it was, sent again by hand: the server no longer knows it.
  const replayed = await request(f.app).get('/console/jobs').set('Cookie', `cronsvc_console=${cookie}`);
  expect(replayed.status).toBe(303);
  expect(replayed.headers.location).toMatch(/^\/console\/sign-in/);
});

it('ends a session when it expires', async () => {
  const { agent } = await f.signedInAgent();
  expect((await agent.get('/console/jobs')).status).toBe(200);
  await f.ctx.runtime.pool.query("UPDATE console_sessions SET expires_at = now() - interval '1 second'");
  expect((await agent.get('/console/jobs')).status).toBe(303);
});

it('ends the sessions opened with a token when the token is deleted', async () => {
  const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const issued = await request(f.app).post(`/admin/v1/workspaces/${f.workspaceId}/tokens`).set(admin);
  expect(issued.status).toBe(201);
  const { agent } = await f.signedInAgent(issued.body.api_token);
  expect((await agent.get('/console/secrets')).status).toBe(200);
  expect((await request(f.app).delete(`/admin/v1/tokens/${issued.body.id}`).set(admin)).status).toBe(204);
  expect((await agent.get('/console/secrets')).status).toBe(303);
});

it('shows the signed-in workspace and a Sign out button on every page', async () => {
  const { agent } = await f.signedInAgent(f.other.token);
  const page = await agent.get('/console/jobs');
  expect(page.text).toContain('<strong>other</strong>');
  expect(page.text).toMatch(/<button type="submit" class="small">Sign out<\/button>/);
});
