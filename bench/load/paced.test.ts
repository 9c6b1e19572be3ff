import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runPaced } from './paced.js';

// The paced load must send at an even pace, and charge a request for the time it waited behind a
// stalled server, or it would print a good p99 for a bad server.

async function server(handle: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  const arrivals: number[] = [];
  const srv = http.createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    handle(req, res, arrivals.length);
  });
  srv.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`;
  return {
    url,
    arrivals,
    close: () => new Promise<void>((resolve) => {
      srv.closeAllConnections();
      srv.close(() => resolve());
    }),
  };
}

it('sends at an even pace and measures the answers', async () => {
  const s = await server((_req, res) => setTimeout(() => res.end('ok'), 20));
  try {
    const r = await runPaced({ url: s.url, method: 'GET', headers: {}, rate: 100, durationSeconds: 1, connections: 20 });
    expect(r.requests.total).toBe(100);
    expect(r.non2xx + r.errors + r.timeouts).toBe(0);
    expect(r.latency.p50).toBeGreaterThanOrEqual(20);
    expect(r.latency.p50).toBeLessThan(200);
    // At 100 requests/s a 100 ms window holds about 10 arrivals, spread over the whole second; a
    // generator that sends each second's quota at once puts all 100 in one window. A busy machine
    // can stall this process's timers for a few hundred ms, and the requests that came due meanwhile
    // then go together, so the bound leaves room for that and still tells the two apart.
    const busiest = Math.max(...s.arrivals.map((t) => s.arrivals.filter((u) => u >= t && u < t + 100).length));
    expect(busiest).toBeLessThanOrEqual(40);
    expect(s.arrivals[s.arrivals.length - 1] - s.arrivals[0]).toBeGreaterThanOrEqual(800);
  } finally {
    await s.close();
  }
});

it('charges requests for the time they queued behind a stalled answer', async () => {
  const s = await server((_req, res, n) => setTimeout(() => res.end('ok'), n === 1 ? 400 : 0));
  try {
    // One connection at 20 requests/s leaves 50 ms per round trip, so the queue drains after the
    // stall even on a busy machine.
    const r = await runPaced({ url: s.url, method: 'GET', headers: {}, rate: 20, durationSeconds: 2, connections: 1 });
    expect(r.requests.total).toBe(40);
    // About 8 requests came due during the stall: measured from their due time, well over 100 ms,
    // while the majority, due after it, are charged far less: it is the stall that is measured.
    expect(r.latency.p99).toBeGreaterThanOrEqual(300);
    expect(r.latency.p50).toBeLessThan(r.latency.p99 / 2);
  } finally {
    await s.close();
  }
});

it('counts answers that are not 2xx, and connection errors', async () => {
  const s = await server((_req, res) => {
    res.statusCode = 401;
    res.end('no');
  });
  try {
    const r = await runPaced({ url: s.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', rate: 50, durationSeconds: 0.2, connections: 2 });
    expect(r.non2xx).toBe(10);
    expect(r.statusCodeStats).toEqual({ '401': { count: 10 } });
  } finally {
    await s.close();
  }
  const refused = await runPaced({ url: s.url, method: 'GET', headers: {}, rate: 50, durationSeconds: 0.1, connections: 1 });
  expect(refused.errors).toBe(5);
  expect(refused.requests.total).toBe(0);
});
