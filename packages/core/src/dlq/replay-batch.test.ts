import { AppError } from '../errors/app-error.js';
import { REPLAY_BATCH_MAX } from '@cronsvc/contracts';
import { parseReplayBatch } from './replay-batch.js';

function pathsOf(body: unknown): string[] {
  try {
    parseReplayBatch(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    return (error as AppError).details!.map((d) => d.path);
  }
  throw new Error('expected a validation error');
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `exe_${i}`);

describe('parseReplayBatch', () => {
  it('accepts 1 to 100 distinct ids', () => {
    expect(parseReplayBatch({ ids: ['exe_a'] })).toEqual({ ids: ['exe_a'] });
    expect(parseReplayBatch({ ids: ids(REPLAY_BATCH_MAX) })).toEqual({ ids: ids(100) });
  });

  it('accepts a job_id alone', () => {
    expect(parseReplayBatch({ job_id: 'job_a' })).toEqual({ job_id: 'job_a' });
  });

  it.each([
    ['an empty ids list', { ids: [] }, ['ids']],
    ['more than 100 ids', { ids: ids(101) }, ['ids']],
    ['a repeated id', { ids: ['exe_a', 'exe_b', 'exe_a'] }, ['ids[2]']],
    ['an id that is not a string', { ids: ['exe_a', 7] }, ['ids[1]']],
    ['an empty id', { ids: [''] }, ['ids[0]']],
    ['both ids and job_id', { ids: ['exe_a'], job_id: 'job_a' }, ['(body)']],
    ['neither ids nor job_id', {}, ['(body)']],
    ['an unknown field', { ids: ['exe_a'], all: true }, ['all']],
    ['no body at all', undefined, ['(body)']],
    ['a body that is not an object', ['exe_a'], ['(body)']],
  ])('rejects %s', (_what, body, paths) => {
    expect(pathsOf(body)).toEqual(paths);
  });
});
