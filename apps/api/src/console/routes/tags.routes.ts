import { Router } from 'express';
import { countTagged, pauseTag, resumeTag } from '@cronsvc/core';
import { redirectDone, sendPage, viewContext, workspaceOf, type ConsoleDeps } from '../context.js';
import { paths } from '../paths.js';
import { tagQuestion } from '../views/jobs.view.js';
import { confirmView } from '../views/problem.view.js';

/**
 * Pause or resume every job with a tag (docs/CONSOLE.md, "Tags"). The jobs list asks first, saying
 * how many jobs; a browser without script gets the same question on a page of its own.
 */
export function tagsRoutes(deps: ConsoleDeps): Router {
  const router = Router();
  for (const action of ['pause', 'resume'] as const) {
    router.post(`/:tag/${action}`, async (req, res) => {
      const ws = workspaceOf(res);
      const tag = req.params.tag;
      if (req.body?.confirmed !== 'yes') {
        const counts = await countTagged(deps, ws, tag);
        const n = action === 'pause' ? counts.active : counts.paused;
        const question = tagQuestion(action, tag, n);
        const label = action === 'pause' ? 'Pause them' : 'Resume them';
        return sendPage(res, 200, confirmView(viewContext(deps, req, res), question, paths.tagAction(tag, action), label, paths.jobsTagged(tag), {}, 'Jobs in another state are left as they are.'));
      }
      const change = await (action === 'pause' ? pauseTag : resumeTag)(deps, ws, tag);
      redirectDone(res, paths.jobsTagged(tag), action === 'pause' ? 'tag-paused' : 'tag-resumed', { n: String(change.changed) });
    });
  }
  return router;
}
