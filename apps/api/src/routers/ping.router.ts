import type { MonitorPingKind, PingResult } from '@cronsvc/contracts';
import express, { Router } from 'express';
import { AppError, pingTokenKnown, recordPing } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';

// The most of a ping's body the API reads; its first 10 KiB are kept with the ping (the rest of
// a longer log is dropped, not refused, so a script's ping does not fail on a long output).
export const PING_BODY_LIMIT = 100 * 1024;

/**
 * `GET|POST /v1/ping/:token` (a success), `/start`, `/fail` and `/:exit_status` (0 a success,
 * 1..255 a fail), public: the token in the path is the credential. Mounted before the API-token
 * check and the 1 MiB JSON parser. The ping itself touches Postgres only; with
 * PUBLIC_RATE_LIMIT_PER_MINUTE on, every kind of request is first counted (in Redis when the
 * service has it) under its token, looked up without taking the monitor's row lock.
 */
export function pingRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const counted = limit((req) => pingTokenKnown(deps, req.params.token as string));
  const ping =
    (kindOf: (req: express.Request) => { kind: MonitorPingKind; exitStatus: number | null }): express.RequestHandler =>
    async (req, res) => {
      const { kind, exitStatus } = kindOf(req);
      const details = {
        kind,
        exitStatus,
        body: Buffer.isBuffer(req.body) ? req.body : null,
        sourceIp: req.socket.remoteAddress ?? null,
        userAgent: req.get('user-agent') ?? null,
      };
      if (!(await recordPing(deps, req.params.token as string, deps.clock.now(), details))) throw AppError.notFound('monitor');
      res.json({ ok: true } satisfies PingResult);
    };
  const exitStatus = (req: express.Request) => {
    const text = req.params.exit_status as string;
    if (!/^\d+$/.test(text)) throw new AppError('not_found', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`);
    const status = Number(text);
    if (status > 255) throw AppError.validation([{ path: 'exit_status', message: 'must be an exit status from 0 to 255' }]);
    return { kind: status === 0 ? 'success' : 'fail', exitStatus: status } as const;
  };
  const body = express.raw({ limit: PING_BODY_LIMIT, type: () => true });
  const routes: [string, express.RequestHandler][] = [
    ['/:token', ping(() => ({ kind: 'success', exitStatus: null }))],
    ['/:token/start', ping(() => ({ kind: 'start', exitStatus: null }))],
    ['/:token/fail', ping(() => ({ kind: 'fail', exitStatus: null }))],
    ['/:token/:exit_status', ping(exitStatus)],
  ];
  for (const [path, handler] of routes) {
    router.get(path, counted, handler);
    router.post(path, counted, body, handler);
  }
  router.use(notFoundRoute);
  return router;
}
