import { newId } from '../src/ids/ids.js';
import { createJob } from '../src/jobs/create-job.js';
import { revealPingToken } from '../src/monitors/ping-token.js';
import { createMonitor } from '../src/monitors/save-monitor.js';
import { createChannel } from '../src/notifications/save-channel.js';
import { createRule, type RuleOwner } from '../src/notifications/rules.js';
import type { Runtime } from '../src/runtime/bootstrap.js';
import { createTestContext, type TestContext } from './test-context.js';

// One factory per kind of object: a test states only what matters to it.

/** A request job; by default a `cron` job that never fires on its own (run it with run-now). */
export async function aJob(runtime: Runtime, workspaceId: string, overrides: Record<string, unknown> = {}) {
  const { job } = await createJob(runtime, workspaceId, {
    name: 'a job',
    kind: 'cron',
    schedule: { cron: '0 0 1 1 *' },
    request: { url: 'https://example.com/' },
    ...overrides,
  });
  return job;
}

/** A notification channel of `type` with `config` (validated like the API validates it). */
export function aChannel(runtime: Runtime, workspaceId: string, type: string, config: Record<string, unknown>, name = `${type} channel`) {
  return createChannel(runtime, workspaceId, { name, type, config });
}

export function aRule(runtime: Runtime, workspaceId: string, owner: RuleOwner, channelId: string, event: string) {
  return createRule(runtime, workspaceId, owner, { channel_id: channelId, event });
}

export function aMonitor(runtime: Runtime, workspaceId: string, overrides: Record<string, unknown> = {}) {
  return createMonitor(runtime, workspaceId, { name: 'a monitor', expected_interval_sec: 60, ...overrides });
}

/** A monitor's ping token in clear (it is stored encrypted). */
export function pingTokenOf(runtime: Runtime, monitor: Awaited<ReturnType<typeof aMonitor>>): string {
  const token = revealPingToken(runtime.config.secretsEncryptionKey, monitor);
  if (!token) throw new Error(`the ping token of ${monitor.id} does not open with this key`);
  return token;
}

/** A delivery written straight to Postgres as the notifier leaves one that gave up: a failed callback unless `fields` say otherwise. */
export function aDelivery(runtime: Runtime, workspaceId: string, fields: Record<string, unknown> = {}) {
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

/**
 * Registers the hooks of a test file that needs only a database, a Redis prefix and one workspace;
 * the fields are filled in by its beforeAll.
 */
export function useWorkspace(overrides: Record<string, string> = {}): { ctx: TestContext; workspaceId: string } {
  const holder = {} as { ctx: TestContext; workspaceId: string };
  beforeAll(async () => {
    holder.ctx = await createTestContext(overrides);
    holder.workspaceId = (await holder.ctx.workspace()).id;
  });
  afterAll(() => holder.ctx.close());
  return holder;
}

/**
 * Bodies of step-driven jobs and their steps, for tests: each test states only what matters to
 * it. A workflow's cron schedule is far away (Jan 1st, 00:00 UTC), so tests run it with run-now.
 */
type Fields = Record<string, unknown>;

export const httpStep = (id: string, url: string, extra: Fields = {}): Fields => ({ id, type: 'http', url, ...extra });
export const waitStep = (id: string, extra: Fields = {}): Fields => ({ id, type: 'wait_for_webhook', ...extra });
export const approvalStep = (id: string, message: string, extra: Fields = {}): Fields => ({ id, type: 'approval', message, ...extra });

export const aWorkflow = (steps: Fields[], extra: Fields = {}): Fields => ({ name: 'workflow', kind: 'workflow', schedule: { cron: '0 0 1 1 *' }, steps, ...extra });
export const aTriggerJob = (steps: Fields[], extra: Fields = {}): Fields => ({ name: 'triggered', kind: 'webhook_trigger', steps, ...extra });
