import request from 'supertest';
import { aJob, aSnoozeLink, waitFor } from '@cronsvc/core/testing';
import { channelsOfEveryType, runToEnd, useNotifierFixture } from './notifier-fixture.js';

// Alerts people keep switched on, through the API with real receivers: a streak alerts once at
// its Nth failure, recovers in green on every channel, and a snoozed rule holds back and says so.

const f = useNotifierFixture();
const auth = () => f.workspace.auth;
type Json = Record<string, any>;

let ch: Awaited<ReturnType<typeof channelsOfEveryType>>;
beforeAll(async () => {
  ch = await channelsOfEveryType(f);
});

let status = 500;
beforeEach(() => {
  status = 500;
  f.target.handle((_req, res) => {
    res.statusCode = status;
    res.end(status < 400 ? 'all good' : 'it broke');
  });
});

async function aJobWithRules(rules: Json[]): Promise<{ jobId: string; rules: Json[] }> {
  const job = await aJob(f.ctx.runtime, f.workspace.id, { name: 'nightly export', request: { url: `${f.target.url}/run` }, retry_policy: { max_attempts: 1 } });
  const made: Json[] = [];
  for (const rule of rules) {
    const res = await request(f.app).post(`/v1/jobs/${job.id}/notification-rules`).set(auth()).send(rule);
    expect(res.status).toBe(201);
    made.push(res.body);
  }
  return { jobId: job.id, rules: made };
}

const ruleOf = async (id: string) => (await request(f.app).get(`/v1/notification-rules/${id}`).set(auth()).expect(200)).body as Json;
/** All messages the receivers got so far, by channel type. */
const received = () => ({
  webhook: f.receiver.at('/webhook').map((r) => JSON.parse(r.body)),
  chat_a: f.receiver.at('/chat-a').map((r) => JSON.parse(r.body)),
  chat_b: f.receiver.at('/chat-b').map((r) => JSON.parse(r.body)),
  chat_c: f.receiver.at('/chat-c').map((r) => JSON.parse(r.body)),
  email: f.smtp.mails.map((m) => m.parsed),
});
const counts = () => Object.values(received()).map((m) => m.length);
/** Waits until the relay has taken every event and nothing is pending. */
async function settled(): Promise<void> {
  await waitFor(async () => (await f.ctx.runtime.db.event.count()) === 0 && (await f.ctx.runtime.db.delivery.count({ where: { status: { in: ['pending', 'processing'] } } })) === 0, { what: 'the deliveries to settle', timeoutMs: 20_000 });
}

it('after_consecutive_failures: one alert per channel at the Nth failure, none after (realert null), then a green recovery on every channel type', async () => {
  const { jobId, rules } = await aJobWithRules([
    ...Object.values(ch).map((c) => ({ channel_id: c.id, event: 'on_failure', after_consecutive_failures: 2, realert_after_minutes: null })),
    ...Object.values(ch).map((c) => ({ channel_id: c.id, event: 'on_recovery' })),
  ]);
  expect(rules[0]).toMatchObject({ after_consecutive_failures: 2, realert_after_minutes: null, held_back: 0, snoozed_until: null });

  await runToEnd(f, jobId);
  await settled();
  expect(counts()).toEqual([0, 0, 0, 0, 0]);
  expect((await ruleOf(rules[0].id)).held_back).toBe(1);

  await runToEnd(f, jobId);
  await waitFor(() => counts().every((n) => n === 1), { what: 'one failure message per channel', timeoutMs: 20_000 });
  await runToEnd(f, jobId);
  await settled();
  expect(counts()).toEqual([1, 1, 1, 1, 1]);

  const m = received();
  expect(m.webhook[0]).toMatchObject({ event: 'execution.failed', held_back: 1, snooze_url: expect.stringMatching(/^https:\/\/cron\.example\.com\/v1\/snooze\/[A-Za-z0-9_-]{24}$/) });
  const actions = m.chat_a[0].blocks.find((b: Json) => b.type === 'actions');
  expect(actions.elements.map((e: Json) => e.text.text)).toContain('Snooze 1 h');
  expect(m.chat_b[0].embeds[0].description).toContain('[Snooze 1 h](https://cron.example.com/v1/snooze/');
  expect(m.chat_c[0].text).toContain('>Snooze 1 h</a>');
  expect(m.email[0].html).toContain('Snooze 1 h');
  const failureRule = await ruleOf(rules[0].id);
  expect(failureRule).toMatchObject({ held_back: 1, last_delivered_at: expect.any(String) });

  status = 200;
  await runToEnd(f, jobId);
  await waitFor(() => counts().every((n) => n === 2), { what: 'one recovery message per channel', timeoutMs: 20_000 });
  const r = received();
  expect(r.webhook[1]).toMatchObject({ event: 'execution.recovered', consecutive_failures: 3, held_back: 0, execution: { status: 'succeeded' } });
  expect(r.webhook[1].snooze_url).toBeUndefined();
  expect(r.chat_a[1].text).toContain('✅ Job "nightly export" recovered');
  expect(r.chat_b[1].embeds[0]).toMatchObject({ title: 'Job "nightly export" recovered', color: 0x2da44e });
  expect(r.chat_c[1].text).toContain('✅');
  expect(r.email[1].subject).toContain('Job "nightly export" recovered');
  expect(r.email[1].html).toContain('background:#2da44e');

  // A success after a success: no second recovery.
  await runToEnd(f, jobId);
  await settled();
  expect(counts()).toEqual([2, 2, 2, 2, 2]);
});

it('two executions of one job failing at the same moment: exactly one alert at the second failure', async () => {
  const { jobId } = await aJobWithRules([{ channel_id: ch.webhook.id, event: 'on_failure', after_consecutive_failures: 2, realert_after_minutes: null }]);
  // Both requests are held until both have arrived, then answered together.
  const waiting: (() => void)[] = [];
  f.target.handle((_req, res) => {
    waiting.push(() => {
      res.statusCode = 500;
      res.end('it broke');
    });
    if (waiting.length === 2) for (const answer of waiting.splice(0)) answer();
  });
  const runs = await Promise.all([1, 2].map(() => request(f.app).post(`/v1/jobs/${jobId}/run-now`).set(auth()).expect(202)));
  await waitFor(async () => {
    const rows = await f.ctx.runtime.db.execution.findMany({ where: { id: { in: runs.map((r) => r.body.id) } } });
    return rows.every((r) => r.status === 'failed');
  }, { what: 'both executions to fail' });
  await settled();
  expect(f.receiver.at('/webhook').map((r) => JSON.parse(r.body).held_back)).toEqual([expect.any(Number)]);
});

it('no recovery message when no failure message was sent', async () => {
  const { jobId } = await aJobWithRules([
    { channel_id: ch.webhook.id, event: 'on_failure', after_consecutive_failures: 3 },
    { channel_id: ch.webhook.id, event: 'on_recovery' },
  ]);
  await runToEnd(f, jobId);
  status = 200;
  await runToEnd(f, jobId);
  await settled();
  expect(f.receiver.at('/webhook')).toHaveLength(0);
});

it('realert_after_minutes 0 delivers every failure of the streak; snooze holds back, and the first delivery after says how many', async () => {
  const { jobId, rules } = await aJobWithRules([{ channel_id: ch.webhook.id, event: 'on_failure' }]);
  const id = rules[0].id;
  const snoozed = await request(f.app).post(`/v1/notification-rules/${id}/snooze`).set(auth()).send({ minutes: 60 }).expect(200);
  expect(Date.parse(snoozed.body.snoozed_until) - Date.now()).toBeGreaterThan(59 * 60_000);
  await runToEnd(f, jobId);
  await runToEnd(f, jobId);
  await settled();
  expect(f.receiver.at('/webhook')).toHaveLength(0);
  expect(await ruleOf(id)).toMatchObject({ held_back: 2, snoozed_until: snoozed.body.snoozed_until, last_delivered_at: null });

  expect((await request(f.app).post(`/v1/notification-rules/${id}/unsnooze`).set(auth()).expect(200)).body.snoozed_until).toBeNull();
  await runToEnd(f, jobId);
  await waitFor(() => f.receiver.at('/webhook').length === 1, { what: 'the first failure after the snooze' });
  expect(JSON.parse(f.receiver.at('/webhook')[0].body)).toMatchObject({ event: 'execution.failed', held_back: 2 });
  await runToEnd(f, jobId);
  await waitFor(() => f.receiver.at('/webhook').length === 2, { what: 'the next failure' });
  expect(JSON.parse(f.receiver.at('/webhook')[1].body)).toMatchObject({ held_back: 0 });
  expect((await ruleOf(id)).held_back).toBe(0);
});

it('the snooze link: GET shows a page and snoozes nothing; POST snoozes for 60 minutes or ?minutes=', async () => {
  const { jobId, rules } = await aJobWithRules([{ channel_id: ch.webhook.id, event: 'on_failure' }]);
  await runToEnd(f, jobId);
  await waitFor(() => f.receiver.at('/webhook').length === 1, { what: 'the failure message' });
  const link = new URL(JSON.parse(f.receiver.at('/webhook')[0].body).snooze_url).pathname;

  const page = await request(f.app).get(link).set('Accept', 'text/html').expect(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  expect(page.headers['content-security-policy']).toContain("form-action 'self'");
  expect(page.text).toContain('nightly export');
  expect(page.text).toContain(`<form method="post" action="${link}?minutes=60">`);
  expect((await ruleOf(rules[0].id)).snoozed_until).toBeNull();

  const snoozed = await request(f.app).post(link).expect(200);
  expect(Object.keys(snoozed.body)).toEqual(['snoozed_until']);
  expect(Math.abs(Date.parse(snoozed.body.snoozed_until) - Date.now() - 60 * 60_000)).toBeLessThan(60_000);
  const longer = await request(f.app).post(`${link}?minutes=1440`).expect(200);
  expect(Date.parse(longer.body.snoozed_until) - Date.now()).toBeGreaterThan(1439 * 60_000);
  expect((await ruleOf(rules[0].id)).snoozed_until).toBe(longer.body.snoozed_until);
  // A browser's form gets a page back.
  expect((await request(f.app).post(`${link}?minutes=60`).set('Accept', 'text/html').type('form').send('').expect(200)).text).toContain('Snoozed');

  expect((await request(f.app).post(`${link}?minutes=0`)).status).toBe(400);
  expect((await request(f.app).post('/v1/snooze/AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  expect((await request(f.app).get('/v1/snooze/AAAAAAAAAAAAAAAAAAAAAAAA').set('Accept', 'text/html')).text).toContain('This snooze link does not work');
});

it('an expired snooze link does not snooze', async () => {
  const { rules } = await aJobWithRules([{ channel_id: ch.webhook.id, event: 'on_failure' }]);
  const token = await aSnoozeLink(f.ctx.runtime, rules[0].id, new Date(Date.now() - 1000));
  expect((await request(f.app).post(`/v1/snooze/${token}`)).status).toBe(404);
  expect((await ruleOf(rules[0].id)).snoozed_until).toBeNull();
});

it('rejects the streak options on other events, and out-of-range values', async () => {
  const { jobId } = await aJobWithRules([]);
  const post = (body: Json) => request(f.app).post(`/v1/jobs/${jobId}/notification-rules`).set(auth()).send({ channel_id: ch.webhook.id, ...body });
  for (const body of [
    { event: 'on_success', after_consecutive_failures: 2 },
    { event: 'on_failure', after_consecutive_failures: 0 },
    { event: 'on_failure', after_consecutive_failures: 101 },
    { event: 'on_failure', realert_after_minutes: 10081 },
    { event: 'on_recovery', realert_after_minutes: 5 },
  ]) {
    const res = await post(body);
    expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'validation_failed']);
  }
  expect((await request(f.app).post('/v1/notification-rules/rul_missing/snooze').set(auth()).send({ minutes: 5 })).status).toBe(404);
  const { body: rule } = await post({ event: 'on_failure' }).expect(201);
  expect((await request(f.app).post(`/v1/notification-rules/${rule.id}/snooze`).set(auth()).send({ minutes: 10081 })).status).toBe(400);
  expect((await request(f.app).post(`/v1/notification-rules/${rule.id}/snooze`).set(auth()).send({})).status).toBe(400);
});
