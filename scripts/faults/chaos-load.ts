import pg from 'pg';
import { aCronJob, aOneTimeJob, aWorkflow, httpStep, waitStep, type TargetServer } from '@cronsvc/core/testing';
import { inParallel, until } from './burst.js';

// What the chaos soak (chaos.test.ts) asks of the service while it is put through its faults:
// one-minute schedules (some failing, with a notification rule and a callback; some workflows
// with waits, resumed through their resume URL or timing out), and bursts of one_time jobs.
// Every target path names its job, so a call lost or made under another id shows by name.

/** Failing jobs call paths starting with this; the target answers them 500. */
export const FAILING = '/fail-';

export interface ScheduleCounts {
  /** One-minute schedules in all, of which `failing` fail and `workflows` are workflows with a wait. */
  schedules: number;
  failing: number;
  workflows: number;
}

export interface Schedule {
  id: string;
  name: string;
  /** Its first slot, once active. */
  firstSlot: number;
}

export interface ApiClient {
  apis: string[];
  /** One request to the next API in turn; a connection that fails (the API was killed) answers status 0. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, any> }>;
  /** A request expected to answer `status`, tried on each API in turn for up to a minute: for what is safe to repeat. */
  expect(status: number, method: string, path: string, body?: unknown): Promise<Record<string, any>>;
}

/** The API as a client of a deployment with several API processes sees it: each request to the next one. */
export function apiClient(apis: string[], token: string): ApiClient {
  let turn = 0;
  const send: ApiClient['send'] = async (method, path, body, headers = {}) => {
    const api = apis[turn++ % apis.length];
    try {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
    } catch {
      return { status: 0, body: {} };
    }
  };
  return {
    apis,
    send,
    async expect(status, method, path, body) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answer = await send(method, path, body);
        if (answer.status === status) return answer.body;
        if (Date.now() > deadline || (answer.status >= 400 && answer.status < 500 && answer.status !== 429)) {
          throw new Error(`${method} ${path} answered ${answer.status} ${JSON.stringify(answer.body)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

/**
 * Creates the schedules before the faults begin: every minute, plain calls, failing calls (a rule
 * of theirs sends each failure to `receiver`'s webhook channel, and their callback goes there too;
 * created as drafts and activated once the rule is there, so that no failure precedes its rule),
 * and workflows that call, wait for a webhook (`wf-resume-*`, resumed by resumeWaits, or
 * `wf-timeout-*`, whose 2 s wait times out and goes on), and call again.
 */
export async function createSchedules(client: ApiClient, target: TargetServer, receiver: TargetServer, counts: ScheduleCounts): Promise<Schedule[]> {
  const channel = await client.expect(201, 'POST', '/v1/notification-channels', { name: 'chaos', type: 'webhook', config: { url: `${receiver.url}/hook` } });
  const everyMinute = { cron: '* * * * *' };
  const plain = counts.schedules - counts.failing - counts.workflows;
  return inParallel(counts.schedules, 8, async (i): Promise<Schedule> => {
    if (i < plain) {
      const job = await client.expect(201, 'POST', '/v1/jobs', aCronJob({ name: `cron-${i}`, schedule: everyMinute, request: { url: `${target.url}/cron-${i}` } }));
      return { id: job.id, name: job.name, firstSlot: Date.parse(job.next_run_at) };
    }
    if (i < plain + counts.failing) {
      const name = `fail-cron-${i}`;
      const draft = await client.expect(
        201,
        'POST',
        '/v1/jobs',
        aCronJob({ name, state: 'draft', schedule: everyMinute, request: { url: `${target.url}/${name}` }, retry_policy: { max_attempts: 1 }, on_failure_url: `${receiver.url}/cb/${name}` }),
      );
      await client.expect(201, 'POST', `/v1/jobs/${draft.id}/notification-rules`, { channel_id: channel.id, event: 'on_failure' });
      const job = await client.expect(200, 'PATCH', `/v1/jobs/${draft.id}`, { state: 'active' });
      return { id: job.id, name, firstSlot: Date.parse(job.next_run_at) };
    }
    const name = i % 2 === 0 ? `wf-resume-${i}` : `wf-timeout-${i}`;
    const wait = name.startsWith('wf-resume') ? { timeout_seconds: 20, on_timeout: 'continue' } : { timeout_seconds: 2, on_timeout: 'continue' };
    const job = await client.expect(
      201,
      'POST',
      '/v1/jobs',
      aWorkflow([httpStep('a', `${target.url}/${name}-a`), waitStep('wait', wait), httpStep('b', `${target.url}/${name}-b`)], { name, schedule: everyMinute }),
    );
    return { id: job.id, name, firstSlot: Date.parse(job.next_run_at) };
  });
}

export interface Creation {
  path: string;
  /** When the last answer came. */
  at: number;
  /** The last answer's status: 0 when the connection failed (the API was killed). */
  status: number;
  code?: string;
  /** Requests sent for it: more than one when an answer was lost or 503. */
  tries: number;
}

/** The creates of a job tried after a lost answer or a 503, the pause before each. */
const CREATE_RETRIES_MS = [500, 1_000, 2_000, 4_000, 8_000];

/** Whether the job was accepted: created (201), or found created by an earlier try of the same Idempotency-Key (200). */
export const wasAccepted = (c: Creation) => c.status === 201 || c.status === 200;

/**
 * A burst of `size` one_time jobs every `everyMs` until `endsAt`, 8 requests at a time spread
 * over the APIs; one in twenty fails at its target and has a callback. Each create carries an
 * Idempotency-Key and is tried again, on the next API, when its answer is lost or a 503, as a
 * careful client does (docs/RELIABILITY.md, "Losing Redis or Postgres"). Answers every job's
 * last answer.
 */
export async function oneTimeBursts(client: ApiClient, target: TargetServer, receiver: TargetServer, plan: { everyMs: number; size: number; endsAt: number }): Promise<Creation[]> {
  const creations: Creation[] = [];
  for (let burst = 0, at = Date.now(); at + plan.everyMs <= plan.endsAt; burst++, at += plan.everyMs) {
    await inParallel(plan.size, 8, async (i) => {
      const name = i % 20 === 0 ? `fail-ot-${burst}-${i}` : `ot-${burst}-${i}`;
      const failing = name.startsWith('fail');
      const job = aOneTimeJob({ name, request: { url: `${target.url}/${name}` }, ...(failing ? { retry_policy: { max_attempts: 1 }, on_failure_url: `${receiver.url}/cb/${name}` } : {}) });
      for (let tries = 1; ; tries++) {
        const { status, body } = await client.send('POST', '/v1/jobs', job, { 'Idempotency-Key': name });
        if ((status !== 0 && status !== 503) || tries > CREATE_RETRIES_MS.length) {
          creations.push({ path: `/${name}`, at: Date.now(), status, code: body.error?.code, tries });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, CREATE_RETRIES_MS[tries - 1]));
      }
    });
    await until(at + plan.everyMs);
  }
  return creations;
}

/**
 * Until `endsAt`, posts to the resume URL of every `wf-resume-*` run waiting for its webhook, as
 * the system that run waits for would, through the APIs in turn (the URL names the service's
 * PUBLIC_BASE_URL, not the test's ports). Answers how many runs it resumed.
 */
export async function resumeWaits(client: ApiClient, databaseUrl: string, endsAt: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  // The faults terminate this pool's connection too.
  pool.on('error', () => undefined);
  const resumed = new Set<string>();
  try {
    while (Date.now() < endsAt) {
      const { rows } = await pool
        .query<{ id: string; url: string }>(
          `SELECT id, waiting_payload->>'resume_url' AS url FROM executions WHERE status = 'waiting' AND waiting_reason = 'webhook' AND job_name LIKE 'wf-resume-%'`,
        )
        .catch(() => ({ rows: [] as { id: string; url: string }[] }));
      for (const row of rows.filter((r) => !resumed.has(r.id))) {
        const { pathname } = new URL(row.url, 'http://service');
        const res = await fetch(`${client.apis[resumed.size % client.apis.length]}${pathname}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"from":"chaos"}',
          signal: AbortSignal.timeout(10_000),
        }).catch(() => undefined);
        if (res?.status === 200) resumed.add(row.id);
        await res?.arrayBuffer();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await pool.end();
  }
  return resumed.size;
}
