import request from 'supertest';
import { createApp } from '@cronsvc/api';
import { runNow, type RuleOwner } from '@cronsvc/core';
import {
  aChannel, aJob, aRule, createTestContext, useNotificationReceivers, useTargetServer, waitFor,
  type Receiver, type SmtpReceiver, type TargetServer, type TestContext, type TestWorkspace,
} from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '@cronsvc/executor';
import { startNotifier, type Notifier } from '../src/notifier.js';

export interface NotifierFixture {
  ctx: TestContext;
  /** The jobs' target: answers 200 "ok" unless a test says otherwise. */
  target: TargetServer;
  /** Where webhook and chat channels post (chat_c through CHAT_C_API_BASE = <receiver>/chat-c). */
  receiver: Receiver;
  smtp: SmtpReceiver;
  executor: Executor;
  notifier: Notifier;
  workspace: TestWorkspace;
  app: ReturnType<typeof createApp>;
}

/**
 * The hooks the notifier's end-to-end tests share: a database and Redis prefix of the file's own,
 * a job target, a notification receiver and an SMTP server, an executor and a notifier in process.
 * Receivers are reset before each test.
 */
export function useNotifierFixture(options: { notifier?: boolean; env?: Record<string, string> } = {}): NotifierFixture {
  const f = {} as NotifierFixture;
  // Registered before the receivers' hooks, so the workers stop before what they send to closes.
  afterAll(async () => {
    await f.executor?.stop();
    await f.notifier?.stop();
    await f.ctx?.close();
  });
  const sinks = useNotificationReceivers();
  beforeAll(async () => {
    ({ receiver: f.receiver, smtp: f.smtp } = sinks);
    f.ctx = await createTestContext({ ...sinks.env, SMTP_FROM: 'Cron Service <cron@example.com>', PUBLIC_BASE_URL: 'https://cron.example.com', ...options.env });
    f.executor = startExecutor(f.ctx.runtime);
    if (options.notifier !== false) f.notifier = startNotifier(f.ctx.runtime);
    f.workspace = await f.ctx.workspace();
    f.app = createApp(f.ctx.runtime);
  });
  f.target = useTargetServer();
  return f;
}

/** A job whose runs answer `status`, with one rule per [channel id, event]; returns the job. */
export async function jobWithRules(f: NotifierFixture, status: number, rules: [string, string][], overrides: Record<string, unknown> = {}) {
  f.target.handle((_req, res) => {
    res.statusCode = status;
    res.end(status < 400 ? 'all good' : 'it broke');
  });
  const job = await aJob(f.ctx.runtime, f.workspace.id, { name: 'nightly export', request: { url: `${f.target.url}/run` }, retry_policy: { max_attempts: 1 }, ...overrides });
  const owner: RuleOwner = { kind: 'job', id: job.id };
  for (const [channelId, event] of rules) await aRule(f.ctx.runtime, f.workspace.id, owner, channelId, event);
  return job;
}

/** Runs the job now and waits until the execution has ended; returns its id. */
export async function runToEnd(f: NotifierFixture, jobId: string): Promise<string> {
  const exe = await runNow(f.ctx.runtime, f.workspace.id, jobId);
  await waitFor(async () => {
    const row = await f.ctx.runtime.db.execution.findUnique({ where: { id: exe.id } });
    return row?.status === 'succeeded' || row?.status === 'failed';
  }, { what: 'the execution to end' });
  return exe.id;
}

/** The execution's deliveries through the API, once `done` holds for them. */
export async function deliveriesOf(f: NotifierFixture, executionId: string, done: (d: Record<string, unknown>[]) => boolean, what = 'the deliveries') {
  return waitFor(async () => {
    const res = await request(f.app).get(`/v1/executions/${executionId}/notifications`).set(f.workspace.auth);
    const data = res.body.data as Record<string, unknown>[];
    return done(data) ? data : undefined;
  }, { what, timeoutMs: 20_000 });
}

export const allSettled = (expected: number) => (d: Record<string, unknown>[]) => d.length === expected && d.every((x) => x.status === 'sent' || x.status === 'failed');

/** A channel of each type pointing at the fixture's receivers. */
export async function channelsOfEveryType(f: NotifierFixture) {
  const ws = f.workspace.id;
  return {
    webhook: await aChannel(f.ctx.runtime, ws, 'webhook', { url: `${f.receiver.url}/webhook`, signing_secret: 'hook-secret' }),
    chat_a: await aChannel(f.ctx.runtime, ws, 'chat_a', { webhook_url: `${f.receiver.url}/chat-a`, mention_text: '<!here>' }),
    chat_b: await aChannel(f.ctx.runtime, ws, 'chat_b', { webhook_url: `${f.receiver.url}/chat-b`, mention_role_ids: ['42'], include_output: true }),
    chat_c: await aChannel(f.ctx.runtime, ws, 'chat_c', { bot_token: '123:abc', chat_id: '-1001', message_thread_id: 5 }),
    email: await aChannel(f.ctx.runtime, ws, 'email', { email: 'ops@example.com' }),
  };
}
