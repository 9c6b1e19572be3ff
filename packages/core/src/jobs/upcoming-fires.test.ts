import { upcomingFires } from './upcoming-fires.js';

const at = (iso: string) => new Date(iso);
const job = (fields: Record<string, unknown>) => ({ state: 'active', scheduleAnchor: at('2026-01-01T00:00:00Z'), ...fields }) as Parameters<typeof upcomingFires>[0];

it('lists a cron job’s next fires from its next_run_at, in UTC', () => {
  const fires = upcomingFires(job({ kind: 'cron', schedule: { cron: '30 9 * * 1-5' }, nextRunAt: at('2026-01-02T09:30:00Z') }), 5);
  expect(fires.map((d) => d.toISOString())).toEqual([
    '2026-01-02T09:30:00.000Z', // Friday
    '2026-01-05T09:30:00.000Z',
    '2026-01-06T09:30:00.000Z',
    '2026-01-07T09:30:00.000Z',
    '2026-01-08T09:30:00.000Z',
  ]);
});

it('follows a recurring job’s grid from its anchor', () => {
  const fires = upcomingFires(job({ kind: 'recurring', schedule: { every_n_minutes: 90 }, nextRunAt: at('2026-01-01T01:30:00Z') }), 3);
  expect(fires.map((d) => d.toISOString())).toEqual(['2026-01-01T01:30:00.000Z', '2026-01-01T03:00:00.000Z', '2026-01-01T04:30:00.000Z']);
});

it('gives a scheduled job its one fire, and nothing for jobs that are not active or have no schedule', () => {
  expect(upcomingFires(job({ kind: 'scheduled', schedule: { run_at: '2026-03-01T00:00:00Z' }, nextRunAt: at('2026-03-01T00:00:00Z') }), 5)).toHaveLength(1);
  expect(upcomingFires(job({ kind: 'cron', state: 'paused', schedule: { cron: '* * * * *' }, nextRunAt: null }), 5)).toEqual([]);
  expect(upcomingFires(job({ kind: 'webhook_trigger', schedule: null, nextRunAt: null }), 5)).toEqual([]);
});
