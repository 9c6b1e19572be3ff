import { AppError } from '../errors/app-error.js';
import { parsePurge } from './purge-dlq.js';

function detailsOf(body: unknown) {
  try {
    parsePurge(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    return (error as AppError).details!;
  }
  throw new Error('expected a validation error');
}

describe('parsePurge', () => {
  it('treats a missing body as a purge of everything', () => {
    expect(parsePurge(undefined)).toEqual({});
    expect(parsePurge({})).toEqual({});
  });

  it('turns before into the instant it names, whatever its offset', () => {
    expect(parsePurge({ before: '2030-06-01T12:00:00+02:00' }).before).toEqual(new Date('2030-06-01T10:00:00.000Z'));
    expect(parsePurge({ job_id: 'job_a', before: '2030-06-01T12:00:00.123Z' })).toEqual({ job_id: 'job_a', before: new Date('2030-06-01T12:00:00.123Z') });
  });

  it.each(['2030-06-01T12:00:00', '2030-06-01', '2030-06-01T12:00:00+0200', 'yesterday', '2030-06-01T25:00:00Z'])('rejects %s, which is not a timestamp with a zone designator (Z or +hh:mm)', (before) => {
    expect(detailsOf({ before })).toEqual([{ path: 'before', message: expect.stringMatching(/time zone designator/) }]);
  });

  it.each(['2030-02-30T00:00:00Z', '2030-04-31T00:00:00Z'])('rejects the non-existent date %s', (before) => {
    expect(detailsOf({ before })).toEqual([{ path: 'before', message: 'is not a valid calendar date' }]);
  });

  it.each([
    ['a number for before', { before: Date.UTC(2030, 0, 1) }, 'before'],
    ['an empty job_id', { job_id: '' }, 'job_id'],
    ['an unknown field', { status: 'failed' }, 'status'],
  ])('rejects %s', (_what, body, path) => {
    expect(detailsOf(body).map((d) => d.path)).toEqual([path]);
  });
});
