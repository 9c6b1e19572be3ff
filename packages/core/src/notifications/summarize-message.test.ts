import { formatDuration, formatSeconds, summarizeMessage } from './summarize-message.js';

describe('formatDuration and formatSeconds', () => {
  it('reads like a person would write it', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatSeconds(45)).toBe('45 s');
    expect(formatSeconds(300)).toBe('5 min');
    expect(formatSeconds(5_400)).toBe('1 h 30 min');
    expect(formatSeconds(86_400 * 2 + 3_600 * 4 + 59)).toBe('2 d 4 h');
    expect(formatSeconds(86_400 + 60)).toBe('1 d 1 min');
  });
});

describe('summarizeMessage', () => {
  it('names a monitor event by what happened, red when down and green when back', () => {
    const down = summarizeMessage({
      event: 'on_down',
      payload: { event: 'monitor.down', monitor: { id: 'mon_1', name: 'backup', expected_interval_sec: 3600, last_ping_at: null }, timestamp: '2030-01-01T00:00:00.000Z' },
      context: null,
    });
    expect(down).toMatchObject({ tone: 'failure', title: 'Monitor "backup" is down', eventName: 'monitor.down' });
    expect(down.fields).toContainEqual({ label: 'Last ping', value: 'never' });
    const up = summarizeMessage({
      event: 'on_recovery',
      payload: { event: 'monitor.recovered', monitor: { id: 'mon_1', name: 'backup', expected_interval_sec: 3600, last_ping_at: '2030-01-01T01:00:00.000Z' }, timestamp: '2030-01-01T01:00:00.000Z' },
      context: null,
    });
    expect(up).toMatchObject({ tone: 'success', title: 'Monitor "backup" is up again' });
    expect(up.fields).toContainEqual({ label: 'Ping received', value: '2030-01-01 01:00:00 UTC' });
  });

  it('lists an approval with its step and the links to review, approve and reject', () => {
    const s = summarizeMessage({
      event: 'on_approval_required',
      payload: {
        event: 'approval.required',
        job: { id: 'job_1', name: 'deploy' },
        execution: { id: 'exe_1', status: 'waiting', waiting_reason: 'approval' },
        approval: { step_id: 'ok', step_index: 1, message: 'Ship it?', expires_at: null, review_url: 'https://x/r', approve_url: 'https://x/a', reject_url: 'https://x/j' },
        timestamp: '2030-01-01T00:00:00.000Z',
      },
      context: null,
    });
    expect(s).toMatchObject({ tone: 'warning', title: 'Job "deploy" is waiting for an approval' });
    expect(s.fields).toEqual(expect.arrayContaining([{ label: 'Step', value: 'ok (step 2)' }, { label: 'Message', value: 'Ship it?' }]));
    expect(s.links.map((l) => l.label)).toEqual(['Review', 'Approve', 'Reject']);
  });

  it('says how many runs a job missed, listing the slots, and names a skip by its reason', () => {
    const slot = (m: number) => ({ scheduled_for: `2030-01-01T00:${String(m).padStart(2, '0')}:00.000Z`, outcome: 'missed' as const, reason: null });
    const job = { id: 'job_1', name: 'nightly' };
    const missed = summarizeMessage({ event: 'on_missed', payload: { event: 'fire.missed', job, fires: Array.from({ length: 12 }, (_, i) => slot(i)), timestamp: '2030-01-01T00:20:00.000Z' }, context: null });
    expect(missed).toMatchObject({ tone: 'warning', title: 'Job "nightly" missed 12 runs', eventName: 'fire.missed' });
    expect(missed.fields).toContainEqual({ label: 'Missed', value: '12 slots' });
    expect(missed.fields.find((f) => f.label === 'Slots')?.value).toMatch(/^2030-01-01 00:00:00 UTC, .* and 2 more$/);
    const skipped = summarizeMessage({
      event: 'on_missed',
      payload: { event: 'fire.missed', job, fires: [{ scheduled_for: '2030-01-01T00:00:00.000Z', outcome: 'skipped', reason: 'overlap' }], timestamp: '2030-01-01T00:00:01.000Z' },
      context: null,
    });
    expect(skipped).toMatchObject({ title: 'Job "nightly" skipped a run (overlap)' });
    expect(skipped.fields).toContainEqual({ label: 'Slot', value: '2030-01-01 00:00:00 UTC' });
  });
});
