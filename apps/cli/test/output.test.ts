import { CommanderError } from 'commander';
import { ApiError, NetworkError } from '@cronsvc/client';
import { UsageError } from '../src/errors.js';
import { table } from '../src/output/table.js';
import { duration, relativeTime } from '../src/output/time.js';
import { painter, paintStatus } from '../src/output/color.js';
import { report } from '../src/report.js';
import { jobPatch, parseHeaders } from '../src/commands/job-body.js';

const reported = (error: unknown) => {
  let text = '';
  const code = report(error, (t) => (text += t));
  return { code, text };
};

describe('cronsvc output helpers', () => {
  it('says times relative to now, in the largest whole unit', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(relativeTime('2026-11-24T09:57:00Z', now)).toBe('3m ago');
    expect(relativeTime('2026-11-24T12:30:00Z', now)).toBe('in 2h');
    expect(relativeTime('2026-11-21T10:00:00Z', now)).toBe('3d ago');
    expect(relativeTime('2026-11-24T10:00:00.400Z', now)).toBe('just now');
    expect(relativeTime(null, now)).toBe('-');
    expect([duration(850), duration(12_340), duration(245_000)]).toEqual(['850 ms', '12.3 s', '4m 05s']);
  });

  it('aligns columns by what is visible, colour codes not counted', () => {
    const paint = painter(true);
    const text = table([{ s: 'succeeded', n: 'a' }, { s: 'failed', n: 'bb' }], [
      { header: 'STATUS', value: (r) => paintStatus(paint, r.s) },
      { header: 'N', value: (r) => r.n },
    ]);
    expect(text.split('\n')).toEqual(['STATUS     N', '\x1b[32msucceeded\x1b[0m  a', '\x1b[31mfailed\x1b[0m     bb']);
  });

  it('maps errors to exit codes and prints the details the message lacks', () => {
    const api = new ApiError(409, 'limit_exceeded', 'too many', [{ path: 'name', message: 'is taken' }]);
    expect(reported(api)).toEqual({ code: 1, text: 'error: limit_exceeded: too many (HTTP 409)\n  name: is taken\n' });
    expect(reported(new ApiError(400, 'validation_failed', 'a: bad', [{ path: 'a', message: 'bad' }])).text).toBe('error: validation_failed: a: bad (HTTP 400)\n');
    expect(reported(new NetworkError('http://x/v1/jobs', 'ECONNREFUSED'))).toEqual({ code: 1, text: 'error: cannot reach http://x/v1/jobs: ECONNREFUSED\n' });
    expect(reported(new UsageError('no'))).toEqual({ code: 2, text: 'error: no\n' });
    expect(reported(new CommanderError(1, 'commander.unknownOption', 'x')).code).toBe(2);
    expect(reported(new CommanderError(0, 'commander.helpDisplayed', '')).code).toBe(0);
  });

  it('builds a PATCH of the flags given only', () => {
    expect(parseHeaders(['A: 1', 'B:x:y'])).toEqual({ A: '1', B: 'x:y' });
    expect(jobPatch({ cron: '0 * * * *' })).toEqual({ kind: 'cron', schedule: { cron: '0 * * * *' } });
    expect(jobPatch({ body: 'plain', timeout: 5 })).toEqual({ request: { body: 'plain', timeout_seconds: 5 } });
    expect(jobPatch({ once: true, maxAttempts: 2 }, { name: 'kept', retry_policy: { retry_on_statuses: [500] } })).toEqual({
      name: 'kept',
      kind: 'one_time',
      retry_policy: { retry_on_statuses: [500], max_attempts: 2 },
    });
  });
});
