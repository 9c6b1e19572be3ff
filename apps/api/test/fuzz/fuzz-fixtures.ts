import {
  createApiToken, createHttpClient, createJob, createSecret, createStatusPage, executionRow, getExecution, hashToken, parkExecution, runAttempt, runNow, serializeExecution, serializeJob,
  type Runtime,
} from '@cronsvc/core';
import { aChannel, aDelivery, aHostLimit, aJob, aMonitor, approvalStep, aRule, aSnoozeLink, aTriggerJob, aWorkflow, httpStep, pingTokenOf, waitStep } from '@cronsvc/core/testing';

/**
 * The real objects a fuzzed request can name: those of the workspace whose token it carries, and
 * another workspace's, which it must never reach. A request that succeeds may use one up (a
 * delete, a resume, a replay from the DLQ), so `refresh` puts back whatever is gone before a
 * request is sent: every request meets a live object of each kind. Requests name them by `Ref`
 * (which slot), resolved to the slot's current id when sent.
 */
export type Resource =
  | 'job' | 'execution' | 'secret' | 'channel' | 'delivery' | 'monitor' | 'rule' | 'workspace' | 'api_token'
  | 'trigger_token' | 'resume_token' | 'approval_token' | 'ping_token' | 'snooze_token' | 'host_limit' | 'tag' | 'status_page' | 'badge_token' | 'status_token';

export type Owner = 'own' | 'other';

export type FixtureIds = Record<Owner, Partial<Record<Resource, string[]>>>;

/** One slot of fixtures: `index` among the owner's slots of that resource. */
export interface Ref {
  owner: Owner;
  resource: Resource;
  index: number;
}

interface Slot extends Ref {
  /** The resources this slot's object is made from, put back first. */
  needs: Resource[];
  /** Whether the object is still there, in the state the slot needs. */
  alive(value: string): Promise<boolean>;
  create(): Promise<string>;
}

export const SECRET_NAME = 'EXPORT_KEY';

export class FuzzFixtures {
  private readonly values = new Map<Slot, string>();
  private readonly slots: Slot[] = [];
  private readonly runner;

  constructor(
    private readonly runtime: Runtime,
    private readonly workspaces: Record<Owner, string>,
    private readonly targetUrl: string,
  ) {
    this.runner = { ...runtime, http: createHttpClient({ allowPrivateTargets: true }) };
    for (const owner of ['own', 'other'] as const) this.declare(owner);
  }

  /** Every slot of `resource`, of both workspaces. */
  refsOf(resource: Resource): Ref[] {
    return this.slots.filter((s) => s.resource === resource).map(({ owner, index }) => ({ owner, resource, index }));
  }

  /** The current id or token of a slot (as of the last refresh). */
  valueOf(ref: Ref): string {
    return this.values.get(this.find(ref.owner, ref.resource, ref.index))!;
  }

  /**
   * Puts back every object of `resources` (and what they are made from) that a request used up,
   * or every object when none are named. Says whether anything was made, which changes the state.
   */
  async refresh(resources?: Resource[]): Promise<boolean> {
    const wanted = new Set(resources ?? this.slots.map((s) => s.resource));
    for (const slot of [...this.slots].reverse()) if (wanted.has(slot.resource)) for (const need of slot.needs) wanted.add(need);
    let made = false;
    for (const slot of this.slots) {
      if (!wanted.has(slot.resource)) continue;
      const value = this.values.get(slot);
      if (value !== undefined && (await slot.alive(value))) continue;
      this.values.set(slot, await slot.create());
      made = true;
    }
    return made;
  }

  /** Every current id and token, by workspace and resource. */
  ids(): FixtureIds {
    const ids: FixtureIds = { own: {}, other: {} };
    for (const slot of this.slots) (ids[slot.owner][slot.resource] ??= []).push(this.valueOf(slot));
    return ids;
  }

  private find(owner: Owner, resource: Resource, index: number): Slot {
    return this.slots.filter((s) => s.owner === owner && s.resource === resource)[index];
  }

  private exists(table: string) {
    return async (id: string) => (await this.runtime.pool.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).rowCount === 1;
  }

  private async sql(text: string, values: unknown[]): Promise<boolean> {
    return (await this.runtime.pool.query(text, values)).rowCount === 1;
  }

  /** The current value of an earlier slot of the same owner (slots are refreshed in order). */
  private current(owner: Owner, resource: Resource, index = 0): string {
    return this.values.get(this.find(owner, resource, index))!;
  }

  private slot(owner: Owner, resource: Resource, create: () => Promise<string>, alive: (value: string) => Promise<boolean>, needs: Resource[] = []): void {
    const index = this.slots.filter((s) => s.owner === owner && s.resource === resource).length;
    this.slots.push({ owner, resource, index, needs, create, alive });
  }

  /** A step-driven run taken to its first wait; its resume or approval token. */
  private async waitingRun(workspaceId: string, step: Record<string, unknown>, urlField: 'resume_url' | 'approve_url'): Promise<string> {
    const { job } = await createJob(this.runtime, workspaceId, aWorkflow([step, httpStep('after', `${this.targetUrl}/after`)]));
    const queued = await runNow(this.runtime, workspaceId, job.id);
    await runAttempt(this.runner, queued.id);
    const payload = serializeExecution(await getExecution(this.runtime, workspaceId, queued.id)).waiting_payload as Record<string, string> | null;
    if (!payload?.[urlField]) throw new Error(`the fixture run ${queued.id} did not wait: ${JSON.stringify(payload)}`);
    return new URL(payload[urlField]).pathname.split('/')[3];
  }

  private declare(owner: Owner): void {
    const ws = this.workspaces[owner];
    const rt = this.runtime;
    const target = this.targetUrl;
    const waiting = (type: string) => (token: string) =>
      this.sql(`SELECT 1 FROM step_executions WHERE token_hash = $1 AND type = $2 AND status = 'waiting' AND decision IS NULL`, [hashToken(token), type]);

    this.slot(owner, 'workspace', async () => ws, async () => true);
    this.slot(owner, 'api_token', async () => (await createApiToken(rt, ws)).id, this.exists('api_tokens'));
    this.slot(owner, 'secret', async () => (await createSecret(rt, ws, { name: SECRET_NAME, value: 'fuzz-secret-value' })).id, this.exists('secrets'));
    this.slot(owner, 'job', async () => (await aJob(rt, ws, { request: { url: `${target}/job` } })).id, this.exists('jobs'));
    this.slot(owner, 'channel', async () => (await aChannel(rt, ws, 'webhook', { url: `${target}/channel` })).id, this.exists('notification_channels'));
    this.slot(owner, 'rule', async () => (await aRule(rt, ws, { kind: 'job', id: this.current(owner, 'job') }, this.current(owner, 'channel'), 'on_failure')).id, this.exists('notification_rules'), ['job', 'channel']);
    this.slot(owner, 'monitor', async () => (await aMonitor(rt, ws)).id, this.exists('monitors'));
    this.slot(owner, 'rule', async () => (await aRule(rt, ws, { kind: 'monitor', id: this.current(owner, 'monitor') }, this.current(owner, 'channel'), 'on_down')).id, this.exists('notification_rules'), ['monitor', 'channel']);
    this.slot(owner, 'delivery', async () => (await aDelivery(rt, ws)).id, (id) => this.sql(`SELECT 1 FROM deliveries WHERE id = $1 AND status = 'failed'`, [id]));
    this.slot(
      owner,
      'execution',
      async () => {
        const jobId = this.current(owner, 'job');
        const row = executionRow({ workspaceId: ws, jobId, jobName: 'a job', source: 'manual', scheduledFor: new Date() });
        return (await rt.db.execution.create({ data: { ...row, status: 'failed', attemptCount: 1, deadLetteredAt: new Date(), finishedAt: new Date() } })).id;
      },
      (id) => this.sql(`SELECT 1 FROM executions WHERE id = $1 AND dead_lettered_at IS NOT NULL`, [id]),
      ['job'],
    );
    this.slot(
      owner,
      'status_page',
      async () => (await createStatusPage(rt, ws, { name: 'fuzz page', job_ids: [this.current(owner, 'job')], monitor_ids: [this.current(owner, 'monitor')] })).id,
      this.exists('status_pages'),
      ['job', 'monitor'],
    );
    if (owner === 'other') return;

    // A badge's file name and a status page's token, the own workspace's only, as the other public tokens.
    this.slot(
      owner,
      'badge_token',
      async () => `${(await rt.db.job.findUniqueOrThrow({ where: { id: this.current(owner, 'job') } })).badgeToken}.svg`,
      async (file) => this.sql('SELECT 1 FROM jobs WHERE badge_token = $1', [file.replace(/\.svg$/, '')]),
      ['job'],
    );
    this.slot(
      owner,
      'status_token',
      async () => (await rt.db.statusPage.findUniqueOrThrow({ where: { id: this.current(owner, 'status_page') } })).token,
      async (token) => this.sql('SELECT 1 FROM status_pages WHERE token = $1', [token]),
      ['status_page'],
    );

    // A host name is not a workspace's to hide either (a PUT of another's sets one's own): the own workspace's only.
    this.slot(
      owner,
      'host_limit',
      async () => (await aHostLimit(rt, ws, 'fuzz.example.com', { max_concurrency: 2 })).host,
      (host) => this.sql('SELECT 1 FROM host_limits WHERE workspace_id = $1 AND host = $2 AND max_concurrency IS NOT NULL', [ws, host]),
    );
    // Public tokens are not a workspace's to hide; the own workspace's are enough.
    const inState = (status: string) => (id: string) => this.sql(`SELECT 1 FROM executions WHERE id = $1 AND status = $2`, [id, status]);
    this.slot(owner, 'execution', async () => (await runNow(rt, ws, this.current(owner, 'job'))).id, inState('queued'), ['job']);
    this.slot(
      owner,
      'execution',
      async () => {
        const queued = await runNow(rt, ws, this.current(owner, 'job'));
        await parkExecution(rt, ws, queued.id);
        return queued.id;
      },
      inState('waiting'),
      ['job'],
    );
    this.slot(owner, 'resume_token', () => this.waitingRun(ws, waitStep('wait', { timeout_seconds: 1200 }), 'resume_url'), waiting('wait_for_webhook'));
    this.slot(owner, 'approval_token', () => this.waitingRun(ws, approvalStep('approve', 'Go?', { timeout_seconds: 1200 }), 'approve_url'), waiting('approval'));
    this.slot(
      owner,
      'ping_token',
      async () => pingTokenOf(rt, await rt.db.monitor.findUniqueOrThrow({ where: { id: this.current(owner, 'monitor') } })),
      async (token) => this.sql('SELECT 1 FROM monitors WHERE ping_token_hash = $1', [hashToken(token)]),
      ['monitor'],
    );
    this.slot(
      owner,
      'snooze_token',
      async () => aSnoozeLink(rt, (await aRule(rt, ws, { kind: 'monitor', id: this.current(owner, 'monitor') }, this.current(owner, 'channel'), 'on_recovery')).id),
      async (token) => this.sql('SELECT 1 FROM rule_snooze_tokens WHERE token_hash = $1', [hashToken(token)]),
      ['monitor', 'channel'],
    );
    // One trigger without a secret (its body is read and stored) and one with (a call without it is a 401).
    for (const extra of [{}, { webhook_secret: 'fuzz-webhook-secret' }]) {
      this.slot(
        owner,
        'trigger_token',
        async () => serializeJob((await createJob(rt, ws, aTriggerJob([httpStep('call', `${target}/triggered`)], extra))).job, rt.config).webhook_token!,
        async (token) => this.sql('SELECT 1 FROM jobs WHERE webhook_token_hash = $1', [hashToken(token)]),
      );
    }
  }
}
