import request from 'supertest';
import { aChannel, aCronJob, aMonitor, aRule, waitFor } from '@cronsvc/core/testing';
import { csrfOf, useConsole } from './console-fixture.js';

// What the console must never do: change anything for a form without the session's CSRF token,
// reach another workspace's objects, run markup that came from data, or put a secret in a page.
const f = useConsole({ browser: false });

const SECRET_VALUE = 'sv-3f9c2b7e1d-very-secret';
const HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)>';

interface Objects {
  job: string;
  failingJob: string;
  execution: string;
  deadLetter: string;
  secret: string;
  monitor: string;
  channel: string;
  rule: string;
  monitorRule: string;
}

/** One workspace's jobs, a run that succeeded and one dead-lettered, a secret, a monitor, a channel and rules. */
async function seed(auth: { Authorization: string }, workspaceId: string): Promise<Objects> {
  const post = async (path: string, body?: object) => {
    const res = await request(f.app).post(path).set(auth).send(body);
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const secret = await post('/v1/secrets', { name: 'API_KEY', value: SECRET_VALUE });
  const job = await post('/v1/jobs', aCronJob({
    name: HOSTILE,
    request: { url: `${f.target.url}/echo`, headers: { 'X-Key': '{{secret.API_KEY}}' } },
  }));
  const failingJob = await post('/v1/jobs', aCronJob({ name: 'failing', request: { url: `${f.target.url}/fail` }, retry_policy: { max_attempts: 1 } }));
  const execution = (await post(`/v1/jobs/${job.id}/run-now`)).id;
  const deadLetter = (await post(`/v1/jobs/${failingJob.id}/run-now`)).id;
  const finished = (id: string) =>
    waitFor(async () => ((await request(f.app).get(`/v1/executions/${id}`).set(auth)).body.finished_at ? true : undefined), { what: `execution ${id} to finish` });
  await Promise.all([finished(execution), finished(deadLetter)]);
  const monitor = await aMonitor(f.ctx.runtime, workspaceId, { name: HOSTILE });
  const channel = await aChannel(f.ctx.runtime, workspaceId, 'webhook', { url: `${f.target.url}/hook` }, 'hook');
  const rule = await aRule(f.ctx.runtime, workspaceId, { kind: 'job', id: job.id }, channel.id, 'on_failure');
  const monitorRule = await aRule(f.ctx.runtime, workspaceId, { kind: 'monitor', id: monitor.id }, channel.id, 'on_down');
  return { job: job.id, failingJob: failingJob.id, execution, deadLetter, secret: secret.id, monitor: monitor.id, channel: channel.id, rule: rule.id, monitorRule: monitorRule.id };
}

/** Everything a workspace holds, as its API shows it: what a refused request must leave as it was. */
async function snapshot(auth: { Authorization: string }, o: Objects): Promise<string> {
  const paths = ['/v1/jobs', '/v1/executions?limit=100', '/v1/dlq', '/v1/secrets', '/v1/monitors', '/v1/notification-channels', `/v1/jobs/${o.job}/notification-rules`, `/v1/monitors/${o.monitor}/notification-rules`];
  const bodies = await Promise.all(paths.map(async (p) => (await request(f.app).get(p).set(auth)).body));
  return JSON.stringify(bodies);
}

/** Every state-changing console route, with a body it would accept. */
const changes = (o: Objects): [string, Record<string, string>][] => [
  ['/console/jobs', { name: 'new', kind: 'recurring', every_n_minutes: '5', url: 'https://example.com/' }],
  [`/console/jobs/${o.job}`, { name: 'renamed', kind: 'cron', cron: '0 0 1 1 *', url: 'https://example.com/' }],
  [`/console/jobs/${o.job}`, { name: 'renamed', kind: 'workflow', cron: '0 0 1 1 *', step_action: 'add:http' }],
  [`/console/jobs/${o.job}/run-now`, {}],
  [`/console/jobs/${o.job}/pause`, {}],
  [`/console/jobs/${o.job}/delete`, { confirmed: 'yes' }],
  [`/console/jobs/${o.job}/rules`, { channel_id: o.channel, event: 'on_success' }],
  [`/console/jobs/${o.job}/rules/${o.rule}/delete`, {}],
  [`/console/executions/${o.execution}/replay`, {}],
  [`/console/dead-letters/${o.deadLetter}/replay`, {}],
  [`/console/dead-letters/${o.deadLetter}/remove`, {}],
  ['/console/dead-letters/replay-job', { job_id: o.failingJob }],
  ['/console/dead-letters/purge', { confirmed: 'yes', job_id: o.failingJob }],
  ['/console/monitors', { name: 'another', expected_interval_sec: '60' }],
  [`/console/monitors/${o.monitor}/pause`, {}],
  [`/console/monitors/${o.monitor}/delete`, { confirmed: 'yes' }],
  [`/console/monitors/${o.monitor}/rules/${o.monitorRule}/delete`, {}],
  [`/console/channels/${o.channel}/test`, {}],
  ['/console/channels/monitor-rules', { monitor_id: o.monitor, channel_id: o.channel, event: 'on_recovery' }],
  ['/console/secrets', { name: 'ANOTHER', value: 'v' }],
  [`/console/secrets/${o.secret}`, { value: 'changed' }],
  [`/console/secrets/${o.secret}/delete`, { confirmed: 'yes' }],
  ['/console/tags/billing/pause', { confirmed: 'yes' }],
  ['/console/tags/billing/resume', { confirmed: 'yes' }],
];

let mine: Objects;
let theirs: Objects;

beforeAll(async () => {
  f.target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/fail') ? 500 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ echoed: req.headers['x-key'] ?? null }));
  });
  mine = await seed(f.auth, f.workspaceId);
  theirs = await seed(f.other.auth, f.other.id);
});

it('refuses every change without the session’s CSRF token (403), and changes nothing', async () => {
  const { agent, csrf } = await f.signedInAgent();
  const before = await snapshot(f.auth, mine);
  const arrivals = f.target.received.length;
  const { csrf: otherSessions } = await f.signedInAgent();
  expect(otherSessions).not.toBe(csrf);
  for (const [path, body] of changes(mine)) {
    const without = await agent.post(path).type('form').send(body);
    expect({ path, status: without.status }).toEqual({ path, status: 403 });
    expect(without.text).toContain('Nothing was changed');
    // Another session's token is no better.
    const foreign = await agent.post(path).type('form').send({ ...body, _csrf: otherSessions });
    expect({ path, status: foreign.status }).toEqual({ path, status: 403 });
  }
  expect(await snapshot(f.auth, mine)).toBe(before);
  expect(f.target.received.length).toBe(arrivals);
  // Sign-out is a change too: the session survives a sign-out without the token.
  expect((await agent.post('/console/sign-out').type('form').send({})).status).toBe(403);
  expect((await agent.get('/console/jobs')).status).toBe(200);
});

it('answers 404 for another workspace’s objects, read or changed, and leaves them as they were', async () => {
  const { agent, csrf } = await f.signedInAgent();
  const before = await snapshot(f.other.auth, theirs);
  for (const path of [`/console/jobs/${theirs.job}`, `/console/jobs/${theirs.job}/edit`, `/console/executions/${theirs.execution}`, `/console/secrets/${theirs.secret}`]) {
    const res = await agent.get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(res.text).toContain('was not found in this workspace');
  }
  // An id in the path, or the monitor a rule is for, is a 404; a job named in a form (replay or
  // purge a job's dead letters) is a 400 on that field, as the API answers.
  const idInPath = (path: string) => /\/(job|exe|sec|mon|chn)_/.test(path);
  for (const [path, body] of changes(theirs).filter(([path, body]) => idInPath(path) || 'job_id' in body || 'monitor_id' in body)) {
    const res = await agent.post(path).type('form').send({ ...body, _csrf: csrf });
    const expected = 'job_id' in body ? 400 : 404;
    expect({ path, status: res.status }).toEqual({ path, status: expected });
  }
  expect(await snapshot(f.other.auth, theirs)).toBe(before);
  // A rule of this workspace's job cannot name the other workspace's channel.
  const rule = await agent.post(`/console/jobs/${mine.job}/rules`).type('form').send({ _csrf: csrf, channel_id: theirs.channel, event: 'on_success' });
  expect(rule.status).toBe(400);
  const monitorRule = await agent.post('/console/channels/monitor-rules').type('form').send({ _csrf: csrf, monitor_id: mine.monitor, channel_id: theirs.channel, event: 'on_down' });
  expect(monitorRule.status).toBe(400);
});

it('escapes whatever a job, a monitor or a response holds', async () => {
  const { agent } = await f.signedInAgent();
  for (const path of ['/console/jobs', `/console/jobs/${mine.job}`, `/console/jobs/${mine.job}/edit`, `/console/executions/${mine.execution}`, '/console/executions', '/console/monitors', '/console/channels']) {
    const page = (await agent.get(path)).text;
    expect({ path, raw: page.includes('<script>alert') || page.includes('<img src=x') }).toEqual({ path, raw: false });
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;');
  }
});

it('never puts a secret’s value in a page: the preview and the request sent are masked as they were recorded', async () => {
  const { agent } = await f.signedInAgent();
  const execution = await agent.get(`/console/executions/${mine.execution}`);
  expect(execution.text).toContain('{&quot;echoed&quot;:&quot;[secret]&quot;}');
  const pages = ['/console/jobs', `/console/jobs/${mine.job}`, `/console/jobs/${mine.job}/edit`, `/console/executions/${mine.execution}`, '/console/executions', '/console/secrets', `/console/secrets/${mine.secret}`, '/console/dead-letters'];
  for (const path of pages) expect({ path, leaks: (await agent.get(path)).text.includes(SECRET_VALUE) }).toEqual({ path, leaks: false });
  // The job's header shows its template, not the value; the request sent shows where the value went.
  expect((await agent.get(`/console/jobs/${mine.job}/edit`)).text).toContain('X-Key: {{secret.API_KEY}}');
  expect(execution.text).toContain('X-Key: [secret]');
});

it('forbids framing and caching of every page', async () => {
  const { agent } = await f.signedInAgent();
  const signIn = await request(f.app).get('/console/sign-in');
  expect(signIn.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(signIn.headers['x-frame-options']).toBe('DENY');
  const pages = ['/console/jobs', '/console/jobs/new', `/console/jobs/${mine.job}`, `/console/jobs/${mine.job}/edit`, '/console/executions', `/console/executions/${mine.execution}`, '/console/dead-letters', '/console/monitors', '/console/channels', '/console/secrets', `/console/secrets/${mine.secret}`, '/console/no-such-page'];
  for (const path of pages) {
    const res = await agent.get(path);
    expect({ path, type: res.type }).toEqual({ path, type: 'text/html' });
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  }
});

it('serves its scripts and styles itself, htmx included, under names that change with their content', async () => {
  const { agent } = await f.signedInAgent();
  const page = (await agent.get('/console/jobs')).text;
  const assets = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  expect(assets).toEqual([expect.stringMatching(/^\/console\/assets\/console\.[0-9a-f]{12}\.css$/), expect.stringMatching(/^\/console\/assets\/htmx\.[0-9a-f]{12}\.js$/), expect.stringMatching(/^\/console\/assets\/console\.[0-9a-f]{12}\.js$/)]);
  for (const path of assets) {
    const res = await request(f.app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  }
  expect((await request(f.app).get(assets[1])).text).toContain('htmx');
  expect(csrfOf(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
});
