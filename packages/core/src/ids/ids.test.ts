import { newId } from './ids.js';

it('makes distinct prefixed ids of 16 random bytes, also across refills of its pool', () => {
  const ids = Array.from({ length: 1_000 }, () => newId('job'));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) {
    expect(id).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id.slice(4), 'base64url')).toHaveLength(16);
  }
});
