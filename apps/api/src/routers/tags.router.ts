import type { TagChange, TagList } from '@cronsvc/contracts';
import { Router } from 'express';
import { listTags, pauseTag, resumeTag } from '@cronsvc/core';
import type { ApiDeps } from '../app.js';

/** GET /v1/tags and pause or resume every job with a tag (docs/JOBS-AS-CODE.md, "Tags"). */
export function tagsRouter(deps: ApiDeps): Router {
  const router = Router();
  const ws = (res: { locals: Record<string, unknown> }) => res.locals.workspaceId as string;
  router.get('/', async (_req, res) => {
    res.json({ data: await listTags(deps, ws(res)) } satisfies TagList);
  });
  router.post('/:tag/pause', async (req, res) => {
    res.json((await pauseTag(deps, ws(res), req.params.tag)) satisfies TagChange);
  });
  router.post('/:tag/resume', async (req, res) => {
    res.json((await resumeTag(deps, ws(res), req.params.tag)) satisfies TagChange);
  });
  return router;
}
