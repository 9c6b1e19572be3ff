import http from 'node:http';
import { listenLocally } from './local-server.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type TargetHandler = (req: ReceivedRequest, res: http.ServerResponse) => void | Promise<void>;

/** A local HTTP server standing in for a job's target; records every request it gets. */
export interface TargetServer {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Replaces how it answers; the default answers 200 "ok". */
  handle(handler: TargetHandler): void;
  close(): Promise<void>;
}

export async function startTargetServer(): Promise<TargetServer> {
  const received: ReceivedRequest[] = [];
  let handler: TargetHandler = (_req, res) => {
    res.end('ok');
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(record);
      Promise.resolve(handler(record, res)).catch(() => res.destroy());
    });
  });
  return {
    ...(await listenLocally(server)),
    received,
    handle(next) {
      handler = next;
    },
  };
}

/**
 * Makes `target` hold every request unanswered until the returned function is called, then
 * answer each 200 `body`: an attempt stays in flight for as long as the test needs.
 */
export function holdAnswers(target: TargetServer, body = 'ok'): () => void {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  target.handle(async (_req, res) => {
    await held;
    res.end(body);
  });
  return () => release();
}

/**
 * Makes `target` answer its requests with `statuses` in turn, the last one from then on; `body`
 * is the text of each answer, or makes it from the call's number (1 for the first).
 */
export function answerInTurn(target: TargetServer, statuses: number[], body: string | ((call: number) => string) = ''): void {
  let calls = 0;
  target.handle((_req, res) => {
    calls += 1;
    res.statusCode = statuses[Math.min(calls, statuses.length) - 1];
    res.end(typeof body === 'string' ? body : body(calls));
  });
}
