// The local target of every scenario, in its own process so its work does not share an event
// loop with the harness. It answers 200 at once (or NNN under /status/NNN), with keep-alive, and
// records the arrival time of every request by its Idempotency-Key header (notification
// deliveries) or else its X-Cron-Service-Execution-Id header (executions). The harness reads the
// records over /__bench/* on the same port. Prints "LISTENING <port>" when ready.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const HEADERS = ['idempotency-key', 'x-cron-service-execution-id'];

let ids: string[] = [];
let ats: number[] = [];
let withoutId = 0;
const distinct = new Set<string>();

function answer(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  // Taken when the headers are parsed: the moment the request reached the target.
  const at = Date.now();
  const url = req.url ?? '/';
  if (url.startsWith('/__bench/')) {
    if (url === '/__bench/stats') return answer(res, 200, { total: ids.length, distinct: distinct.size, withoutId });
    if (url === '/__bench/reset' && req.method === 'POST') {
      ids = [];
      ats = [];
      withoutId = 0;
      distinct.clear();
      return answer(res, 200, { ok: true });
    }
    const page = /^\/__bench\/arrivals\?from=(\d+)$/.exec(url);
    if (page) {
      const from = Number(page[1]);
      const to = Math.min(ids.length, from + 50_000);
      const arrivals: [string, number][] = [];
      for (let i = from; i < to; i++) arrivals.push([ids[i], ats[i]]);
      return answer(res, 200, { arrivals, next: to, total: ids.length });
    }
    return answer(res, 404, { error: 'unknown bench endpoint' });
  }
  const id = HEADERS.map((h) => req.headers[h]).find((v) => typeof v === 'string' && v.length > 0);
  if (typeof id === 'string' && id.length > 0) {
    ids.push(id);
    ats.push(at);
    distinct.add(id);
  } else {
    withoutId++;
  }
  // Drain any body, then answer at once, small body, connection kept alive.
  req.resume();
  const status = Number(/^\/status\/([1-5]\d\d)\b/.exec(url)?.[1] ?? 200);
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': 2 });
  res.end('ok');
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.maxRequestsPerSocket = 0;

server.listen(Number(process.env.TARGET_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
