import type { Actor } from '../access/actor.js';
import { REPLAY_BATCH_MAX, type ReplayBatchInput, type ReplayBatchResult } from '@cronsvc/contracts';
import Joi from 'joi';
import type { ExecutionRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { enqueueCommitted, firstAttempt } from '../executions/create-executions.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { assertJobInWorkspace, deadLettered, jobIdSchema } from './dead-lettered.js';
import { commitReplay } from './replay-execution.js';

/** At most this many items per batch, listed or taken from one job (its oldest). */
export const schema = Joi.object({
  ids: Joi.array().items(Joi.string().min(1).max(100)).min(1).max(REPLAY_BATCH_MAX).unique(),
  job_id: jobIdSchema,
})
  .xor('ids', 'job_id')
  .required();

/** Validates the body of POST /v1/dlq/replay-batch: exactly one of `ids` (1..100 distinct) or `job_id`. */
export function parseReplayBatch(body: unknown): ReplayBatchInput {
  return validate<ReplayBatchInput>(schema, body);
}

/**
 * POST /v1/dlq/replay-batch (docs/EXECUTIONS.md). Each item is replayed in its own transaction, one after another
 * so a batch never holds more than one connection; an id that is not in this workspace's DLQ
 * lands in `failed` and the others go on. Anything else (the database gone) ends the batch with
 * that error; what was committed before it is still queued.
 */
export async function replayBatch(deps: Deps, workspaceId: string, body: unknown, actor?: Actor): Promise<ReplayBatchResult> {
  const input = parseReplayBatch(body);
  const ids = 'ids' in input ? input.ids : await oldestOfJob(deps, workspaceId, input.job_id);
  const result: ReplayBatchResult = { replayed: [], failed: [] };
  const committed: ExecutionRow[] = [];
  try {
    for (const id of ids) {
      try {
        const replay = await commitReplay(deps, workspaceId, id, 'dlq_replay', actor);
        committed.push(replay);
        result.replayed.push({ id, execution_id: replay.id });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        result.failed.push({ id, error: error.message });
      }
    }
  } finally {
    await enqueueCommitted(deps, committed.map(firstAttempt));
  }
  return result;
}

/** `{job_id}` replays that job's oldest items, at most a batch; a bigger DLQ takes several calls. */
async function oldestOfJob(deps: Pick<Deps, 'db'>, workspaceId: string, jobId: string): Promise<string[]> {
  await assertJobInWorkspace(deps.db, workspaceId, jobId);
  const items = await deps.db.execution.findMany({
    where: { workspaceId, jobId, ...deadLettered },
    orderBy: [{ deadLetteredAt: 'asc' }, { id: 'asc' }],
    take: REPLAY_BATCH_MAX,
    select: { id: true },
  });
  return items.map((item) => item.id);
}
