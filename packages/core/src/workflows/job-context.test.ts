import { applyChanges, CONTEXT_LIMITS } from './job-context.js';

it('sets and deletes keys', () => {
  expect(applyChanges({ a: '1', b: '2' }, { b: null, c: '3', gone: null })).toEqual({ entries: { a: '1', c: '3' } });
});

it('refuses a map with too many keys, too big a value or too many bytes in all', () => {
  const many = Object.fromEntries(Array.from({ length: CONTEXT_LIMITS.keys + 1 }, (_, i) => [`k${i}`, 'v']));
  expect(applyChanges({}, many)).toEqual({ problems: [{ path: '(body)', message: expect.stringContaining(`${CONTEXT_LIMITS.keys + 1} keys`) }] });
  expect(applyChanges({}, { v: 'é'.repeat(CONTEXT_LIMITS.valueBytes / 2 + 1) })).toEqual({ problems: [{ path: 'v', message: expect.stringContaining('bytes of UTF-8') }] });
  const big = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`b${i}`, 'x'.repeat(CONTEXT_LIMITS.valueBytes)]));
  expect(applyChanges({}, big)).toEqual({ problems: [{ path: '(body)', message: expect.stringContaining(`at most ${CONTEXT_LIMITS.totalBytes}`) }] });
});
