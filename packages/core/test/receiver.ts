import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { startTargetServer, type ReceivedRequest, type TargetServer } from './target-server.js';

/** One scripted answer: a status with headers and body, or `hang` (never answer: a send stuck in flight). */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
}

/** A local notification receiver: records every request, answers from a script, then 200 "ok". */
export interface Receiver extends TargetServer {
  /** Answers the next requests with these, one each, in order; afterwards 200 "ok" again. */
  script(...answers: Answer[]): void;
  /** Requests whose path starts with `prefix`. */
  at(prefix: string): ReceivedRequest[];
  /** Forgets what was received and the rest of the script. */
  reset(): void;
}

/**
 * Checks `X-Webhook-Signature: sha256=<hex>` against the HMAC-SHA256 of the raw body with `secret`,
 * the way a receiver of webhook notifications would (independently of the service's own code).
 */
export function webhookSignatureValid(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['x-webhook-signature'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(request.body, 'utf8').digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(): Promise<Receiver> {
  const target = await startTargetServer();
  let answers: Answer[] = [];
  const hanging = new Set<http.ServerResponse>();
  target.handle((_req, res) => {
    const answer = answers.shift() ?? {};
    if (answer.hang) {
      hanging.add(res);
      return;
    }
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body ?? 'ok');
  });
  return {
    ...target,
    script(...next) {
      answers = next;
    },
    at: (prefix) => target.received.filter((r) => r.url.startsWith(prefix)),
    reset() {
      target.received.length = 0;
      answers = [];
    },
    async close() {
      for (const res of hanging) res.destroy();
      await target.close();
    },
  };
}
