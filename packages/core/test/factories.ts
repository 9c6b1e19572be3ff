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
