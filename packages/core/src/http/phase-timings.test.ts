import { startTargetServer, type TargetServer } from '../../test/target-server.js';
import { createHttpClient, type HttpResult } from './http-client.js';

// Per-phase timings of the outbound client's attempts, against a local target (docs/EXECUTIONS.md, "Timings").

let target: TargetServer;
const client = createHttpClient({ allowPrivateTargets: true });

beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(async () => {
  await client.close();
  await target.close();
});

function send(url: string, workspaceId = 'ws_timings'): Promise<HttpResult> {
  return client.send({ url, workspaceId, method: 'GET', headers: {}, body: null, timeoutMs: 10_000 });
}

describe('phase timings', () => {
  it('times a new connection to a name: dns and connect measured, no tls over http, the wait before headers in ttfb', async () => {
    target.handle((_req, res) => void setTimeout(() => res.end('late'), 300));
    const result = await send(`http://localhost:${target.port}/slow`, 'ws_timings_dns');
    expect(result.kind).toBe('response');
    const { timings } = result;
    expect(timings.dns_ms).toEqual(expect.any(Number));
    expect(timings.connect_ms).toEqual(expect.any(Number));
    expect(timings.tls_ms).toBeNull();
    // The target waited 300 ms before its headers: that wait is the time to first byte, not the connection's.
    expect(timings.ttfb_ms).toBeGreaterThanOrEqual(250);
    expect(timings.total_ms).toBe(result.latencyMs);
    expect(timings.total_ms).toBeGreaterThanOrEqual(timings.ttfb_ms!);
    for (const value of Object.values(timings)) if (value !== null) expect(Number.isInteger(value)).toBe(true);
  });

  it('has no dns phase for an address host, and no connection phases on a reused connection', async () => {
    target.handle((_req, res) => void res.end('ok'));
    const first = await send(`${target.url}/one`, 'ws_timings_reuse');
    expect(first.timings.dns_ms).toBeNull();
    expect(first.timings.connect_ms).toEqual(expect.any(Number));
    const second = await send(`${target.url}/two`, 'ws_timings_reuse');
    expect(second.kind).toBe('response');
    expect(second.timings).toEqual({ dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: expect.any(Number), total_ms: second.latencyMs });
  });

  it('keeps the phases apart for requests in flight together', async () => {
    target.handle((req, res) => void setTimeout(() => res.end('ok'), req.url === '/slow' ? 300 : 0));
    const [slow, quick] = await Promise.all([send(`${target.url}/slow`, 'ws_timings_pair'), send(`${target.url}/quick`, 'ws_timings_pair')]);
    expect(slow.timings.ttfb_ms).toBeGreaterThanOrEqual(250);
    expect(quick.timings.ttfb_ms).toBeLessThan(slow.timings.ttfb_ms!);
  });

  it('has only the total when no request could be written', async () => {
    const result = await send('http://127.0.0.1:1/', 'ws_timings_refused');
    expect(result.kind).toBe('error');
    expect(result.timings).toEqual({ dns_ms: null, connect_ms: null, tls_ms: null, ttfb_ms: null, total_ms: result.latencyMs });
  });

  it('has no time to first byte when the target never answers', async () => {
    target.handle(() => undefined);
    const result = await client.send({ url: `${target.url}/never`, workspaceId: 'ws_timings_timeout', method: 'GET', headers: {}, body: null, timeoutMs: 300 });
    expect(result.kind).toBe('error');
    expect(result.timings.ttfb_ms).toBeNull();
    expect(result.timings.connect_ms).toEqual(expect.any(Number));
  });
});
