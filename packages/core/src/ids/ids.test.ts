import { newId, newToken } from './ids.js';

it('makes distinct prefixed ids of 16 random bytes, also across refills of its pool', () => {
  const ids = Array.from({ length: 1_000 }, () => newId('job'));
  expect(new Set(ids).size).toBe(ids.length);
  for (const id of ids) {
    expect(id).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id.slice(4), 'base64url')).toHaveLength(16);
  }
});

it('never makes a token that opens with a dash, which a command line would read as an option', () => {
  const tokens = Array.from({ length: 5_000 }, () => newToken());
  expect(tokens.filter((t) => t.startsWith('-'))).toEqual([]);
  // About one in 64 base64url tokens would open with one: the 5,000 cover the case.
  expect(new Set(tokens.map((t) => t[0])).size).toBeGreaterThan(60);
});
