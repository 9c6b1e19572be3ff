import { deliveriesFor, type EventExecution, type OutboxEvent, type RuleRow } from './fan-out.js';

const BASE = 'https://cron.example.com';
const at = new Date('2030-01-01T00:00:05.000Z');

const execution = (overrides: Partial<EventExecution> = {}): EventExecution => ({
  id: 'exe_1',
  jobId: 'job_1',
  jobName: 'nightly',
  status: 'succeeded',
  scheduledFor: new Date('2030-01-01T00:00:00.000Z'),
  startedAt: new Date('2030-01-01T00:00:01.000Z'),
  finishedAt: at,
  durationMs: 4000,
  attemptCount: 2,
  finalResponse: { statusCode: 200, bodyPreview: 'ok' },
  finalOutput: { n: 1 },
  errorClass: null,
  errorMessage: null,
  onSuccessUrl: 'https://hooks.example.com/ok',
  onFailureUrl: null,
  muted: false,
  ...overrides,
});

const event = (overrides: Partial<OutboxEvent> = {}): OutboxEvent => ({
  workspaceId: 'wsp_1',
  type: 'execution.succeeded',
  executionId: 'exe_1',
  monitorId: null,
  jobId: null,
  payload: null,
  streak: null,
  createdAt: at,
  ...overrides,
});

const rule = (id: string, event: RuleRow['event'], owner: Partial<RuleRow> = { jobId: 'job_1' }): RuleRow => ({ id, channelId: `chn_${id}`, destination: `chn_${id}`, event, jobId: null, monitorId: null, ...owner });

describe('deliveriesFor', () => {
  it('owes a success its callback and one delivery per matching rule of its job, on_completion named execution.completed', () => {
    const rules = [rule('a', 'on_success'), rule('b', 'on_completion'), rule('c', 'on_failure'), rule('d', 'on_success', { jobId: 'job_other' })];
    const out = deliveriesFor(event(), execution(), rules, BASE);
    expect(out.map((d) => [d.kind, d.event, d.ruleId, d.channelId, d.url])).toEqual([
      ['callback', 'on_success', null, null, 'https://hooks.example.com/ok'],
      ['channel', 'on_success', 'a', 'chn_a', null],
      ['channel', 'on_completion', 'b', 'chn_b', null],
    ]);
    expect(out[0].payload).toEqual({
      event: 'execution.succeeded',
      job: { id: 'job_1', name: 'nightly' },
      execution: { id: 'exe_1', status: 'succeeded', status_code: 200, body_preview: 'ok', error_class: null },
      output: { n: 1 },
      timestamp: '2030-01-01T00:00:05.000Z',
    });
    expect(out[2].payload).toEqual({ ...out[0].payload, event: 'execution.completed' });
    expect(out[1].context).toEqual({
      scheduled_for: '2030-01-01T00:00:00.000Z',
      started_at: '2030-01-01T00:00:01.000Z',
      finished_at: '2030-01-01T00:00:05.000Z',
      duration_ms: 4000,
      attempts: 2,
      error_message: null,
      execution_url: `${BASE}/v1/executions/exe_1`,
    });
    expect(new Set(out.map((d) => d.id)).size).toBe(3);
  });

  it('sends a muted job no notification, but still its callback', () => {
    const out = deliveriesFor(event({ type: 'execution.failed' }), execution({ status: 'failed', muted: true, onFailureUrl: 'https://hooks.example.com/bad' }), [rule('a', 'on_failure')], BASE);
    expect(out.map((d) => [d.kind, d.event])).toEqual([['callback', 'on_failure']]);
  });

  it('owes nothing for an execution that is gone', () => {
    expect(deliveriesFor(event(), undefined, [rule('a', 'on_success')], BASE)).toEqual([]);
  });

  it('sends a monitor event to that monitor’s rules for it, with the payload as recorded', () => {
    const payload = { event: 'monitor.down', monitor: { id: 'mon_1', name: 'backup', expected_interval_sec: 60, last_ping_at: null }, timestamp: at.toISOString() };
    const rules = [rule('a', 'on_down', { monitorId: 'mon_1' }), rule('b', 'on_recovery', { monitorId: 'mon_1' }), rule('c', 'on_down', { monitorId: 'mon_2' })];
    const out = deliveriesFor(event({ type: 'monitor.down', executionId: null, monitorId: 'mon_1', payload }), undefined, rules, BASE);
    expect(out).toEqual([expect.objectContaining({ kind: 'channel', event: 'on_down', ruleId: 'a', monitorId: 'mon_1', executionId: null, payload, context: null })]);
  });

  it('sends an approval request to the job’s on_approval_required rules with the payload its step wrote', () => {
    const payload = {
      event: 'approval.required',
      job: { id: 'job_1', name: 'deploy' },
      execution: { id: 'exe_1', status: 'waiting', waiting_reason: 'approval' },
      approval: { step_id: 's', step_index: 0, message: 'ok?', expires_at: null, review_url: 'r', approve_url: 'a', reject_url: 'j' },
      timestamp: at.toISOString(),
    };
    const out = deliveriesFor(event({ type: 'approval.required', payload }), execution({ status: 'waiting' }), [rule('a', 'on_approval_required'), rule('b', 'on_success')], BASE);
    expect(out.map((d) => [d.kind, d.event, d.payload])).toEqual([['channel', 'on_approval_required', payload]]);
  });

  it('owes one delivery per event to a destination that several channels of the job share, and each destination its own', () => {
    const same = { jobId: 'job_1', destination: 'dst_victim' };
    const rules = [rule('a', 'on_success', same), rule('b', 'on_success', same), rule('c', 'on_success', same), rule('d', 'on_completion', same), rule('e', 'on_success')];
    const out = deliveriesFor(event(), execution({ onSuccessUrl: null }), rules, BASE);
    // One on_success to the shared destination (its first rule's), its on_completion apart, and the other channel's own.
    expect(out.map((d) => [d.event, d.ruleId])).toEqual([['on_success', 'a'], ['on_completion', 'd'], ['on_success', 'e']]);
  });

  it('sends a fire.missed event without an execution to its job’s on_missed rules only', () => {
    const payload = {
      event: 'fire.missed' as const,
      job: { id: 'job_1', name: 'nightly' },
      fires: [{ scheduled_for: at.toISOString(), outcome: 'missed' as const, reason: null }],
      timestamp: at.toISOString(),
    };
    const rules = [rule('a', 'on_missed'), rule('b', 'on_failure'), rule('c', 'on_missed', { jobId: 'job_other' })];
    const out = deliveriesFor(event({ type: 'fire.missed', executionId: null, jobId: 'job_1', payload }), undefined, rules, BASE);
    expect(out).toEqual([expect.objectContaining({ kind: 'channel', event: 'on_missed', ruleId: 'a', executionId: null, monitorId: null, payload, context: null })]);
  });
});
