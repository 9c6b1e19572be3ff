import { createServer, type Server } from 'node:http';
import type { Logger } from '../logging/logger.js';
import type { Answer, OperatorEndpoints } from './operator-endpoints.js';

/**
 * HEALTH_PORT of a worker started on its own: GET /healthz, /readyz and /metrics, and 404 for
 * anything else. Plain node:http, since workers serve nothing else over HTTP.
 */
export async function startHealthServer(endpoints: OperatorEndpoints, port: number, logger: Logger): Promise<{ port: number; close(): Promise<void> }> {
  const send = (res: import('node:http').ServerResponse, answer: Answer<unknown>) => {
    const text = typeof answer.body === 'string';
    res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? (text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8'), 'Cache-Control': 'no-store' });
    res.end(text ? (answer.body as string) : JSON.stringify(answer.body));
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<Answer<unknown>> => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, body: { error: { code: 'method_not_allowed', message: `${req.method} is not allowed here; use GET` } } };
      if (path === '/healthz') return endpoints.health();
      if (path === '/readyz') return endpoints.ready();
      if (path === '/metrics') return endpoints.metrics(req.headers.authorization);
      return { status: 404, body: { error: { code: 'not_found', message: `no route for ${req.method} ${path}: this port serves /healthz, /readyz and /metrics` } } };
    };
    answer().then(
      (a) => {
        if (a.status === 405) res.setHeader('Allow', 'GET, HEAD');
        send(res, a);
      },
      (error: Error) => {
        logger.error('health port: unhandled error', { error });
        send(res, { status: 500, body: { error: { code: 'internal_error', message: 'internal error' } } });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
