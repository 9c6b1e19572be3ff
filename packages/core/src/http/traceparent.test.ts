import { traceIdOf, traceparent, withTraceparent } from './traceparent.js';

describe('traceparent', () => {
  it('is W3C version 00: one trace per key, a span of its own per request', () => {
    const first = traceparent('exe_1');
    const second = traceparent('exe_1');
    expect(first).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(first.split('-')[1]).toBe(traceIdOf('exe_1'));
    expect(second.split('-')[1]).toBe(first.split('-')[1]);
    expect(second.split('-')[2]).not.toBe(first.split('-')[2]);
    expect(traceIdOf('exe_2')).not.toBe(traceIdOf('exe_1'));
  });

  it("replaces a job's own traceparent, whatever its case", () => {
    const request = { url: 'https://example.com', method: 'GET', headers: { TraceParent: 'theirs', Accept: 'text/plain' }, timeoutMs: 1_000, workspaceId: 'ws_1' };
    expect(withTraceparent(request as never, 'ours').headers).toEqual({ Accept: 'text/plain', traceparent: 'ours' });
  });
});
