import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { createRuntime, loadConfig, serviceLogger, type Runtime } from '@cronsvc/core';
import { aChannel, aMonitor, approvalStep, aRule, aSnoozeLink, aTriggerJob, aWorkflow, httpStep, pingTokenOf, waitFor, waitStep } from '@cronsvc/core/testing';
import { createApp } from '../src/app.js';
import { useWorkflowFixture } from './workflow-fixture.js';

// PUBLIC_RATE_LIMIT_PER_MINUTE: per public token (trigger, resume, approval, ping), shared by every
// API process (through Redis, or through Postgres when the queues are there: this file also runs
// in the "queues on postgres" project); unknown tokens per client address. Each test sends from
// a loopback address of its own (127.0.0.x), so the per-address counts of one do not reach another.

const LIMIT = 5;
const f = useWorkflowFixture({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

let second: Runtime;
let servers: http.Server[];
let ports: number[];

beforeAll(async () => {
  // A second API process: its own runtime, connections and pools, on the same stores.
  second = createRuntime(f.ctx.config, serviceLogger(f.ctx.config, 'test'));
  servers = [createApp(f.ctx.runtime), createApp(second)].map((app) => app.listen(0, '127.0.0.1'));
  await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? r(null) : s.once('listening', r)))));
  ports = servers.map((s) => (s.address() as AddressInfo).port);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await second.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

let nextAddress = 10;
/** A loopback address no other test of this file sends from. */
const freshAddress = () => `127.0.0.${nextAddress++}`;

/** One request to API process `process` (0 or 1), from `from`. */
function send(method: string, path: string, options: { from: string; process?: number; body?: string; type?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: ports[options.process ?? 0], method, path, localAddress: options.from, headers: options.body === undefined ? {} : { 'Content-Type': options.type ?? 'application/json' }, agent: false },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `count` requests, alternating between the two API processes; their statuses. */
async function statuses(count: number, method: string, path: (i: number) => string, from: string, body?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push((await send(method, path(i), { from, process: i % 2, body })).status);
  return out;
}

function expectLimited(answer: Answer): void {
  expect(answer.status).toBe(429);
  expect(answer.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('PUBLIC_RATE_LIMIT_PER_MINUTE') });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(answer.headers).not.toHaveProperty('ratelimit-remaining');
}

const pathOf = (url: string) => new URL(url).pathname;
const executionsOf = async (jobId: string) => (await f.get(`/v1/jobs/${jobId}/executions`)).body.data as Record<string, any>[];

it('counts a trigger token across API processes; past the limit it answers 429 with Retry-After and starts nothing', async () => {
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
  const from = freshAddress();
  expect(await statuses(LIMIT, 'POST', () => `/v1/triggers/${job.webhook_token}`, from, '{}')).toEqual(Array(LIMIT).fill(200));
  // From another address too: the count is the token's.
  expectLimited(await send('POST', `/v1/triggers/${job.webhook_token}`, { from: freshAddress(), process: 1, body: '{}' }));
  await waitFor(async () => (await executionsOf(job.id)).length === LIMIT, { what: `${LIMIT} triggered runs` });
  expect(await executionsOf(job.id)).toHaveLength(LIMIT);
});

it('limits a resume token, and the run still waits after a refused resume', async () => {
  const job = await f.createJob(aWorkflow([waitStep('callback')]));
  const id = await f.runNow(job.id);
  const { waiting_payload: payload } = await f.until(id, 'waiting');
  const from = freshAddress();
  // The first resume is taken; the later ones answer 404 (used) and are counted all the same.
  const spent = await statuses(LIMIT, 'POST', () => pathOf(payload.resume_url), from);
  expect(spent[0]).toBe(200);
  expect(spent.slice(1)).toEqual(Array(LIMIT - 1).fill(404));
  expectLimited(await send('POST', pathOf(payload.resume_url), { from }));
});

it('limits an approval token across its page and its decisions, and a refused decision decides nothing', async () => {
  const job = await f.createJob(aWorkflow([approvalStep('review', 'Go?')]));
  const id = await f.runNow(job.id);
  const { waiting_payload: payload } = await f.until(id, 'waiting');
  const from = freshAddress();
  expect(await statuses(LIMIT, 'GET', () => pathOf(payload.review_url), from)).toEqual(Array(LIMIT).fill(200));
  expectLimited(await send('POST', pathOf(payload.approve_url), { from, body: '{}' }));
  expect((await f.execution(id)).status).toBe('waiting');
  const step = await f.ctx.runtime.db.stepExecution.findFirstOrThrow({ where: { executionId: id } });
  expect(step.decision).toBeNull();
});

it('limits a ping token across every kind of ping, and a refused ping records nothing', async () => {
  const monitor = await aMonitor(f.ctx.runtime, f.workspaceId);
  const token = pingTokenOf(f.ctx.runtime, monitor);
  const from = freshAddress();
  const kinds = ['', '/start', '/0', '/fail', '/3'];
  expect(await statuses(LIMIT, 'GET', (i) => `/v1/ping/${token}${kinds[i % kinds.length]}`, from)).toEqual(Array(LIMIT).fill(200));
  const before = await f.ctx.runtime.db.monitor.findUniqueOrThrow({ where: { id: monitor.id } });
  for (const kind of kinds) expectLimited(await send('POST', `/v1/ping/${token}${kind}`, { from }));
  const after = await f.ctx.runtime.db.monitor.findUniqueOrThrow({ where: { id: monitor.id } });
  expect([after.lastPingAt, after.pingCount]).toEqual([before.lastPingAt, before.pingCount]);
});

it('limits a snooze link across its page and its POST, and a refused POST snoozes nothing', async () => {
  const monitor = await aMonitor(f.ctx.runtime, f.workspaceId);
  const channel = await aChannel(f.ctx.runtime, f.workspaceId, 'webhook', { url: 'https://hooks.example.com/snooze-limit' });
  const rule = await aRule(f.ctx.runtime, f.workspaceId, { kind: 'monitor', id: monitor.id }, channel.id, 'on_down');
  const token = await aSnoozeLink(f.ctx.runtime, rule.id);
  const from = freshAddress();
  expect(await statuses(LIMIT, 'GET', () => `/v1/snooze/${token}`, from)).toEqual(Array(LIMIT).fill(200));
  expectLimited(await send('POST', `/v1/snooze/${token}`, { from }));
  expect((await f.ctx.runtime.db.notificationRule.findUniqueOrThrow({ where: { id: rule.id } })).snoozedUntil).toBeNull();
});

it('counts unknown tokens per client address, so made-up tokens do not get around the limit', async () => {
  const from = freshAddress();
  const made = () => randomBytes(32).toString('base64url');
  const answers = [
    ...(await statuses(2, 'POST', () => `/v1/triggers/trg_${made()}`, from, '{}')),
    ...(await statuses(1, 'POST', () => `/v1/resume/rsm_${made()}`, from)),
    ...(await statuses(1, 'GET', () => `/v1/approvals/apr_${made()}`, from)),
    ...(await statuses(1, 'GET', () => `/v1/ping/${made()}`, from)),
  ];
  expect(answers).toEqual([200, 200, 404, 404, 404]);
  expectLimited(await send('POST', `/v1/triggers/trg_${made()}`, { from, body: '{}' }));
  expectLimited(await send('GET', `/v1/ping/${made()}`, { from, process: 1 }));
  // A known token from the same address has a count of its own; another address starts afresh.
  const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
  expect((await send('POST', `/v1/triggers/${job.webhook_token}`, { from, body: '{}' })).status).toBe(200);
  expect((await send('POST', `/v1/triggers/trg_${made()}`, { from: freshAddress(), body: '{}' })).status).toBe(200);
});

describe('the body of a public call', () => {
  /** Sends the headers of a POST announcing `length` bytes and only a few of them; resolves with what came back, or null after 5 s. */
  function announce(path: string, length: number, from: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port: ports[0], host: '127.0.0.1', localAddress: from }, () =>
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"a":`),
      );
      let answer = '';
      const timer = setTimeout(() => (socket.destroy(), resolve(null)), 5_000);
      socket.on('data', (d) => {
        answer += d;
        if (/\r\n\r\n[\s\S]*\}$/.test(answer)) (clearTimeout(timer), socket.destroy(), resolve(answer));
      });
      socket.on('error', reject);
    });
  }

  it('is not waited for when the token is unknown: the answer comes before the body has arrived', async () => {
    const trigger = await announce(`/v1/triggers/trg_${randomBytes(32).toString('base64url')}`, 900_000, freshAddress());
    expect(trigger).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"received":true\}$/);
    const resume = await announce(`/v1/resume/rsm_${randomBytes(32).toString('base64url')}`, 900_000, freshAddress());
    expect(resume).toMatch(/^HTTP\/1\.1 404 [\s\S]*"not_found"/);
  });

  it('is not waited for when the token is over its limit', async () => {
    const job = await f.createJob(aTriggerJob([httpStep('call', `${f.target.url}/x`)]));
    const from = freshAddress();
    await statuses(LIMIT, 'POST', () => `/v1/triggers/${job.webhook_token}`, from, '{}');
    expect(await announce(`/v1/triggers/${job.webhook_token}`, 900_000, from)).toMatch(/^HTTP\/1\.1 429 [\s\S]*"rate_limited"/);
  });
});

it('counts nothing with PUBLIC_RATE_LIMIT_PER_MINUTE=0, and refuses a value that is not a whole number from 0', async () => {
  const config = loadConfig({ ...f.ctx.env, PUBLIC_RATE_LIMIT_PER_MINUTE: '0' });
  expect(config.publicRateLimitPerMinute).toBeUndefined();
  expect(loadConfig({ ...f.ctx.env, PUBLIC_RATE_LIMIT_PER_MINUTE: '' }).publicRateLimitPerMinute).toBe(1200);
  for (const bad of ['-1', 'off', '1.5']) expect(() => loadConfig({ ...f.ctx.env, PUBLIC_RATE_LIMIT_PER_MINUTE: bad })).toThrow(/PUBLIC_RATE_LIMIT_PER_MINUTE/);

  const runtime = createRuntime(config, serviceLogger(config, 'test'));
  const server = createApp(runtime).listen(0, '127.0.0.1');
  try {
    await new Promise((r) => server.once('listening', r));
    const monitor = await aMonitor(f.ctx.runtime, f.workspaceId);
    const from = freshAddress();
    for (let i = 0; i < LIMIT * 3; i += 1) {
      const res = await new Promise<number>((resolve, reject) =>
        http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: `/v1/ping/${pingTokenOf(f.ctx.runtime, monitor)}`, localAddress: from, agent: false }, (r) => (r.resume(), resolve(r.statusCode!))).on('error', reject),
      );
      expect(res).toBe(200);
    }
  } finally {
    await new Promise((r) => server.close(r));
    await runtime.close();
  }
});
