import { Router } from 'express';
import { AppError, badgeByToken, badgeSvg, badgeTokenKnown, shieldsEndpoint } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';
import { notFoundRoute } from '../middleware/errors.js';
import type { PublicRateLimit } from '../middleware/rate-limit.js';

/** A badge is looked at often and changes rarely: caches may keep it this long (under a minute). */
export const BADGE_MAX_AGE_S = 30;

const FILE = /^(.+)\.(svg|json)$/;

/**
 * `GET /v1/badges/:token.svg` and `.json`, public (docs/JOBS.md, "Badges"): the token is the
 * credential. The SVG is an image with no script or link; the JSON a shields.io endpoint object.
 */
export function badgesRouter(deps: ApiDeps, limit: PublicRateLimit): Router {
  const router = Router();
  const tokenOf = (file: string) => FILE.exec(file)?.[1] ?? '';
  const counted = limit((req) => badgeTokenKnown(deps, tokenOf(req.params.token as string)));
  router.get('/:token', counted, async (req, res) => {
    const file = FILE.exec(req.params.token as string);
    const badge = file ? await badgeByToken(deps, file[1]) : null;
    if (!file || !badge) throw AppError.notFound('badge');
    res.set('Cache-Control', `public, max-age=${BADGE_MAX_AGE_S}`);
    res.set('X-Content-Type-Options', 'nosniff');
    if (file[2] === 'json') {
      res.json(shieldsEndpoint(badge.label, badge.state));
      return;
    }
    res.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('image/svg+xml').send(badgeSvg(badge.label, badge.state));
  });
  router.use(notFoundRoute);
  return router;
}
