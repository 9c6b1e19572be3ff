import { parseTraceparent, traceIdOf, traceparent } from './trace-ids.js';

describe('parseTraceparent', () => {
  it('reads the ids of a version-00 traceparent, ours included', () => {
    expect(parseTraceparent(`00-${'a1'.repeat(16)}-${'b2'.repeat(8)}-01`)).toEqual({ traceId: 'a1'.repeat(16), spanId: 'b2'.repeat(8) });
    expect(parseTraceparent(traceparent('exe_1'))?.traceId).toBe(traceIdOf('exe_1'));
  });

  it('answers undefined for anything else, and for the all-zero ids W3C calls invalid', () => {
    for (const value of [undefined, '', 'garbage', `01-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`, `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`, `00-${'a'.repeat(32)}-${'0'.repeat(16)}-01`]) {
      expect([value, parseTraceparent(value)]).toEqual([value, undefined]);
    }
  });
});
