// Bodies of the objects the API creates, as plain objects: a test states only what matters to it
// and takes the rest from here. No I/O, so unit tests use them too; factories.ts creates the
// objects through core.

export type Fields = Record<string, unknown>;

const EXAMPLE_URL = 'https://example.com/';
/** Jan 1st, 00:00 UTC: far away, so a job on it runs only when a test runs it (run-now). */
const FAR_AWAY_CRON = '0 0 1 1 *';

/** A request job's body; `request` is merged over the default one, so a test that sets a method or headers keeps the URL. */
function requestJob(kind: string, defaults: Fields, { request, ...overrides }: Fields): Fields {
  return { ...defaults, kind, request: { url: EXAMPLE_URL, ...(request as Fields | undefined) }, ...overrides };
}

/** A `cron` job body whose schedule is far away. */
export const aCronJob = (overrides: Fields = {}): Fields => requestJob('cron', { name: 'a cron job', schedule: { cron: FAR_AWAY_CRON } }, overrides);
/** A `recurring` job body, every hour from its creation. */
export const aRecurringJob = (overrides: Fields = {}): Fields => requestJob('recurring', { name: 'a recurring job', schedule: { every_n_minutes: 60 } }, overrides);
/** A `scheduled` job body that runs an hour from now. */
export const aScheduledJob = (overrides: Fields = {}): Fields =>
  requestJob('scheduled', { name: 'a scheduled job', schedule: { run_at: new Date(Date.now() + 3_600_000).toISOString() } }, overrides);
/** A `cron` job body with a key, as one job of an apply document (docs/JOBS-AS-CODE.md). */
export const aKeyedJob = (key: string, overrides: Fields = {}): Fields => aCronJob({ key, name: key, ...overrides });
/** A `one_time` job body: creating it queues its one execution at once. */
export const aOneTimeJob = (overrides: Fields = {}): Fields => requestJob('one_time', { name: 'a one-time job' }, overrides);

/**
 * Bodies of step-driven jobs and their steps. A workflow's cron schedule is far away (Jan 1st,
 * 00:00 UTC), so tests run it with run-now.
 */
export const httpStep = (id: string, url: string, extra: Fields = {}): Fields => ({ id, type: 'http', url, ...extra });
export const waitStep = (id: string, extra: Fields = {}): Fields => ({ id, type: 'wait_for_webhook', ...extra });
export const approvalStep = (id: string, message: string, extra: Fields = {}): Fields => ({ id, type: 'approval', message, ...extra });

export const aWorkflow = (steps: Fields[], extra: Fields = {}): Fields => ({ name: 'workflow', kind: 'workflow', schedule: { cron: FAR_AWAY_CRON }, steps, ...extra });
export const aTriggerJob = (steps: Fields[], extra: Fields = {}): Fields => ({ name: 'triggered', kind: 'webhook_trigger', steps, ...extra });

/** A valid config of each channel type; its destinations reach no one. */
export const CHANNEL_CONFIGS: Record<string, Fields> = {
  webhook: { url: 'https://hooks.example.com/in' },
  email: { email: 'ops@example.com' },
  chat_a: { webhook_url: 'https://chat-a.example.com/services/T/B/xyz' },
  chat_b: { webhook_url: 'https://chat-b.example.com/api/webhooks/1/abc' },
  chat_c: { bot_token: '123456:ABC-def_ghi', chat_id: '-1001234567890' },
};

/** The body of a channel of `type`: its config is `config` when given, else a valid one of that type. */
export const aChannelBody = (type: string, config: Fields = CHANNEL_CONFIGS[type], name = `${type} channel`): Fields => ({ name, type, config });

/** A monitor's body: expecting a ping every minute, no grace. */
export const aMonitorBody = (overrides: Fields = {}): Fields => ({ name: 'a monitor', expected_interval_sec: 60, ...overrides });


/** A target's JSON answer with something for every kind of JSONPath: names, numbers, arrays, a dotted key, nesting. */
export const SAMPLE_JSON_BODY = JSON.stringify({
  id: 'run-1',
  status: 'ok',
  count: 3,
  items: [
    { name: 'a', score: 10, tags: ['x'] },
    { name: 'b', score: 20, tags: [] },
  ],
  meta: { 'content.type': 'json', nested: { deep: true } },
});
