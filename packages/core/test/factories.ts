import { randomBytes } from 'node:crypto';
import { getExecution } from '../src/executions/list-executions.js';
import { putHostLimit } from '../src/hosts/host-limits.js';
import { hashToken, newId } from '../src/ids/ids.js';
import { createJob } from '../src/jobs/create-job.js';
import { revealPingToken } from '../src/monitors/ping-token.js';
import { createMonitor } from '../src/monitors/save-monitor.js';
import { createChannel } from '../src/notifications/save-channel.js';
import { createRule, type RuleOwner } from '../src/notifications/rules.js';
import type { Runtime } from '../src/runtime/bootstrap.js';
import { createApiToken } from '../src/workspaces/tokens.js';
import { createTestContext, type TestContext, type TestWorkspace } from './test-context.js';
import { startReceiver, type Receiver } from './receiver.js';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.js';
import { startTargetServer, type TargetServer } from './target-server.js';
import { waitFor } from './wait-for.js';
import { aChannelBody, aCronJob, aMonitorBody, aOneTimeJob, aRecurringJob, aScheduledJob, aTriggerJob, aWorkflow, type Fields } from './bodies.js';

// One factory per kind of object: a test states only what matters to it and takes the rest from
// here. The bodies (bodies.ts) are plain objects, as the API takes them; `a<Thing>(runtime,
// workspaceId, ...)` creates the thing through core, as the API would.
export * from './bodies.js';

const bodyOfKind: Record<string, (fields: Fields) => Fields> = {
  cron: aCronJob,
  recurring: aRecurringJob,
  scheduled: aScheduledJob,
  one_time: aOneTimeJob,
  workflow: (fields) => aWorkflow([], fields),
  webhook_trigger: (fields) => aTriggerJob([], fields),
};

/**
 * A job created through core. `fields` override a cron job's body (the default), or, with a
 * `kind`, the body of that kind: `aJob(runtime, ws, { kind: 'recurring' })`,
 * `aJob(runtime, ws, aWorkflow([...]))`.
 */
export async function aJob(runtime: Runtime, workspaceId: string, fields: Fields = {}) {
  // A kind the service does not know is left to its validation to refuse.
  const body = (bodyOfKind[(fields.kind as string | undefined) ?? 'cron'] ?? aCronJob)(fields);
  const { job } = await createJob(runtime, workspaceId, body);
  return job;
}

/** A `one_time` job created through core, with the id of the execution its creation queued. */
export async function aOneTimeExecution(runtime: Runtime, workspaceId: string, overrides: Fields = {}) {
  const job = await aJob(runtime, workspaceId, aOneTimeJob(overrides));
  const { id } = await runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id } });
  return { job, executionId: id };
}

/** The execution once it has succeeded or failed, as getExecution reads it (attempts and steps). */
export function finishedExecution(
  runtime: Runtime,
  workspaceId: string,
  executionId: string,
  options: { timeoutMs?: number; what?: () => string } = {},
): Promise<Awaited<ReturnType<typeof getExecution>>> {
  return waitFor(
    async () => {
      const exe = await getExecution(runtime, workspaceId, executionId);
      return exe.status === 'succeeded' || exe.status === 'failed' ? exe : undefined;
    },
    { timeoutMs: options.timeoutMs, what: options.what ?? `execution ${executionId} to finish` },
  );
}

/**
 * Moves a recurring job's grid back as an outage would leave it: `slots` of its slots have passed
 * unfired (the last one half a period ago) and the next one comes half a period from now. The
 * scheduler's next pass finds them as one window. Returns the passed slots, oldest first.
 */
export async function anOutageOf(runtime: Runtime, jobId: string, slots: number): Promise<Date[]> {
  const job = await runtime.db.job.findUniqueOrThrow({ where: { id: jobId } });
  const period = (job.schedule as { every_n_minutes: number }).every_n_minutes * 60_000;
  const anchor = new Date(Date.now() - slots * period - period / 2);
  await runtime.db.job.update({ where: { id: jobId }, data: { scheduleAnchor: anchor, nextRunAt: new Date(anchor.getTime() + period) } });
  return Array.from({ length: slots }, (_, i) => new Date(anchor.getTime() + (i + 1) * period));
}

/** A notification channel of `type` (validated like the API validates it); `config` as in aChannelBody. */
/** A host's limits in a workspace (PUT /v1/host-limits/:host's use case). */
export async function aHostLimit(runtime: Runtime, workspaceId: string, host: string, limits: { max_concurrency?: number; max_per_second?: number }) {
  return (await putHostLimit(runtime, workspaceId, host, limits)).row;
}

export function aChannel(runtime: Runtime, workspaceId: string, type: string, config?: Fields, name?: string) {
  return createChannel(runtime, workspaceId, aChannelBody(type, config, name));
}

/** `options`: the rule's other fields (after_consecutive_failures, realert_after_minutes). */
export function aRule(runtime: Runtime, workspaceId: string, owner: RuleOwner, channelId: string, event: string, options: Fields = {}) {
  return createRule(runtime, workspaceId, owner, { channel_id: channelId, event, ...options });
}

/** A snooze link of the rule, as a delivery hands one out; returns its token. */
export async function aSnoozeLink(runtime: Runtime, ruleId: string, expiresAt = new Date(Date.now() + 7 * 86_400_000)): Promise<string> {
  const token = randomBytes(18).toString('base64url');
  await runtime.db.ruleSnoozeToken.create({ data: { tokenHash: hashToken(token), ruleId, expiresAt } });
  return token;
}

export function aMonitor(runtime: Runtime, workspaceId: string, overrides: Fields = {}) {
  return createMonitor(runtime, workspaceId, aMonitorBody(overrides));
}

/** A monitor's ping token in clear (it is stored encrypted). */
export function pingTokenOf(runtime: Runtime, monitor: Awaited<ReturnType<typeof aMonitor>>): string {
  const token = revealPingToken(runtime.config.secretsEncryptionKey, monitor);
  if (!token) throw new Error(`the ping token of ${monitor.id} does not open with this key`);
  return token;
}

/** A delivery written straight to Postgres as the notifier leaves one that gave up: a failed callback unless `fields` say otherwise. */
/** An API token of the workspace, `full` unless a scope is given: `aToken(runtime, ws, { scope: 'read' })`. */
export function aToken(runtime: Runtime, workspaceId: string, fields: Fields = {}) {
  return createApiToken(runtime, workspaceId, fields);
}

export function aDelivery(runtime: Runtime, workspaceId: string, fields: Fields = {}) {
  return runtime.db.delivery.create({
    data: {
      id: newId('dlv'),
      workspaceId,
      kind: 'callback',
      event: 'on_failure',
      url: 'https://example.com/callback',
      payload: {},
      status: 'failed',
      attempts: 5,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      ...fields,
    },
  });
}

export interface WorkspaceFixture {
  ctx: TestContext;
  workspaceId: string;
  workspace: TestWorkspace;
  /** A second workspace, with `second`: what the first must not reach. */
  second: TestWorkspace;
}

/** Whether a fixture lives for the file (or describe block), or is made afresh for each test. */
export interface FixtureLifetime {
  perTest?: boolean;
}

const hooksFor = ({ perTest }: FixtureLifetime) => (perTest ? { setUp: beforeEach, tearDown: afterEach } : { setUp: beforeAll, tearDown: afterAll });

/**
 * Registers the hooks of a test file that needs a database, a Redis prefix (`env` on top of the
 * test configuration) and one workspace (named `name`), and a second one when `second` names it;
 * the fields are filled in by its first hook. With `perTest`, each test gets its own.
 */
export function useWorkspace(options: { env?: Record<string, string>; name?: string; second?: string } & FixtureLifetime = {}): WorkspaceFixture {
  const { setUp, tearDown } = hooksFor(options);
  const holder = {} as WorkspaceFixture;
  setUp(async () => {
    holder.ctx = await createTestContext(options.env);
    holder.workspace = await holder.ctx.workspace(options.name);
    holder.workspaceId = holder.workspace.id;
    if (options.second) holder.second = await holder.ctx.workspace(options.second);
  });
  tearDown(() => holder.ctx?.close());
  return holder;
}

/**
 * A local target for the tests of the file (or describe block), or with `perTest` one for each
 * test; it answers 200 "ok" and each test starts with its record empty and that answer back.
 * Read its fields inside hooks and tests.
 */
export function useTargetServer(lifetime: FixtureLifetime = {}): TargetServer {
  const { setUp, tearDown } = hooksFor(lifetime);
  let server: TargetServer | undefined;
  const current = () => {
    if (!server) throw new Error('the target starts in a before hook');
    return server;
  };
  setUp(async () => {
    server = await startTargetServer();
  });
  tearDown(() => server?.close());
  if (!lifetime.perTest) {
    beforeEach(() => {
      current().received.length = 0;
      current().handle((_req, res) => void res.end('ok'));
    });
  }
  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get received() {
      return current().received;
    },
    handle: (handler) => current().handle(handler),
    close: () => current().close(),
  };
}

export interface NotificationReceivers {
  /** Where webhook and chat channels post (chat_c through CHAT_C_API_BASE = <receiver>/chat-c). */
  receiver: Receiver;
  smtp: SmtpReceiver;
  /** The settings that send the service's notifications to these: SMTP_URL and CHAT_C_API_BASE. */
  env: Record<string, string>;
}

/**
 * A notification receiver and an SMTP server for the tests of the file, emptied before each
 * test; a test context made after this hook's beforeAll takes `env` to send to them.
 */
export function useNotificationReceivers(): NotificationReceivers {
  const sinks = {} as NotificationReceivers;
  beforeAll(async () => {
    sinks.receiver = await startReceiver();
    sinks.smtp = await startSmtpReceiver();
    sinks.env = { SMTP_URL: sinks.smtp.url, CHAT_C_API_BASE: `${sinks.receiver.url}/chat-c` };
  });
  afterAll(() => Promise.all([sinks.receiver?.close(), sinks.smtp?.close()]));
  beforeEach(() => {
    sinks.receiver.reset();
    sinks.smtp.mails.length = 0;
  });
  return sinks;
}
