import http from 'node:http';
import request from 'supertest';
import { aJob } from '@cronsvc/core/testing';
import { csrfOf, useConsole } from './console-fixture.js';

// The console is no way around the limits: a session's requests count against RATE_LIMIT_PER_MINUTE
// of the token it was opened with, and sign-in attempts are limited per client address.

const LIMIT = 5;
const SIGN_INS = 4;
const f = useConsole({ browser: false, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), CONSOLE_SIGN_IN_PER_MINUTE: String(SIGN_INS) } });

const sessions = async () => Number((await f.ctx.runtime.pool.query<{ n: string }>('SELECT count(*) AS n FROM console_sessions')).rows[0].n);

it('counts a console session against its token: past RATE_LIMIT_PER_MINUTE, 30 run-nows in the console run nothing', async () => {
  const { token, auth, id: workspaceId } = await f.ctx.workspace('limited');
  const job = await aJob(f.ctx.runtime, workspaceId);
  const { agent, csrf } = await f.signedInAgent(token);
  // The API takes what is left of the token's minute; the console page above took one.
  let refused: request.Response | undefined;
  for (let i = 0; i < LIMIT && !refused; i += 1) {
    const res = await request(f.app).get('/v1/jobs').set(auth);
    if (res.status === 429) refused = res;
  }
  expect(refused?.status).toBe(429);

  for (let i = 0; i < 30; i += 1) {
    const res = await agent.post(`/console/jobs/${job.id}/run-now`).type('form').send({ _csrf: csrf });
    expect(res.status).toBe(429);
    expect(res.type).toBe('text/html');
    expect(res.text).toContain('RATE_LIMIT_PER_MINUTE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['ratelimit-remaining']).toBe('0');
  }
  expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(0);
  expect((await agent.get('/console/jobs')).status).toBe(429);
});

it('counts the API and the console of one token together, and each token on its own', async () => {
  const { token, auth } = await f.ctx.workspace('shared');
  const { agent } = await f.signedInAgent(token);
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT; i += 1) {
    statuses.push((await agent.get('/console/jobs')).status, (await request(f.app).get('/v1/jobs').set(auth)).status);
  }
  // One page before, then console and API in turn: the token's fifth request is its last.
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT - 1);
  expect(statuses.slice(LIMIT - 1).every((s) => s === 429)).toBe(true);
  // The fixture's workspace has its own token and its own count.
  expect((await request(f.app).get('/v1/jobs').set(f.auth)).status).toBe(200);
});

/** A sign-in attempt from `localAddress`, with its own form and cookie. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  cookies: string[];
}

async function signInFrom(localAddress: string, token: string): Promise<Answer> {
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = http.request(`${f.base}${path}`, { method, headers, localAddress }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text, cookies: ([] as string[]).concat(res.headers['set-cookie'] ?? []) }));
      });
      req.on('error', reject).end(body);
    });
  const form = await send('GET', '/console/sign-in', {});
  const cookie = form.cookies.map((c) => c.split(';')[0]).join('; ');
  const fields = new URLSearchParams({ _csrf: csrfOf(form.body), token }).toString();
  return send('POST', '/console/sign-in', { cookie, 'content-type': 'application/x-www-form-urlencoded' }, fields);
}

it('limits sign-in attempts per client address: past CONSOLE_SIGN_IN_PER_MINUTE, a 429 page and no session, even with the right token', async () => {
  const before = await sessions();
  const answers: number[] = [];
  for (let i = 0; i < SIGN_INS; i += 1) answers.push((await signInFrom('127.0.0.2', 'csk_guess')).status);
  expect(answers).toEqual(Array(SIGN_INS).fill(400));

  const over = await signInFrom('127.0.0.2', f.token);
  expect(over.status).toBe(429);
  expect(over.body).toContain('Too many sign-in attempts from your address');
  expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(over.cookies.some((c) => c.startsWith('cronsvc_console='))).toBe(false);
  expect(await sessions()).toBe(before);

  // Another address still signs in.
  const elsewhere = await signInFrom('127.0.0.3', f.token);
  expect(elsewhere.status).toBe(303);
  expect(await sessions()).toBe(before + 1);
});
