import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, writeAudit } from '../access/audit.js';
import { Prisma } from '../db/client.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { assertJobInWorkspace, jobIdSchema } from './dead-lettered.js';

/** Rows cleared per statement, so purging a huge DLQ never holds many row locks for long. */
export const PURGE_BATCH = 1000;

export interface PurgeInput {
  job_id?: string;
  /** Exclusive: items dead-lettered strictly before this instant are purged. */
  before?: Date;
}

// Date and time are required, and a zone: a bare local time would mean whatever the server's zone is.
const ZONED_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

const zonedTimestamp = Joi.string().custom((value: string, helpers) => {
  const parts = ZONED_TIMESTAMP.exec(value);
  const time = new Date(value);
  if (!parts || Number.isNaN(time.getTime())) {
    return helpers.message({ custom: 'must be an ISO 8601 timestamp with a time zone designator (Z or an offset such as +02:00)' });
  }
  // Date reads 2030-02-30 as March 2; a day the month does not have is not a timestamp.
  const [year, month, day] = parts.slice(1, 4).map(Number);
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return helpers.message({ custom: 'is not a valid calendar date' });
  return time;
});

export const schema = Joi.object({ job_id: jobIdSchema, before: zonedTimestamp });

/** Validates the body of POST /v1/dlq/purge; both fields are optional, and no body means `{}`. */
export function parsePurge(body: unknown): PurgeInput {
  return validate<PurgeInput>(schema, body ?? {});
}

/**
 * POST /v1/dlq/purge (docs/EXECUTIONS.md): matching items leave the DLQ (dead_lettered_at cleared); the executions
 * stay, like DELETE /v1/dlq/:id. With neither field, the whole DLQ of the workspace is purged.
 * A purge that cleared something writes one `dlq.purged` event, after its last batch (each batch
 * commits on its own, so the purge is not one transaction).
 */
export async function purgeDlq(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, body: unknown, actor?: Actor): Promise<number> {
  const input = parsePurge(body);
  if (input.job_id) await assertJobInWorkspace(deps.db, workspaceId, input.job_id);
  const match = Prisma.join(
    [
      Prisma.sql`workspace_id = ${workspaceId}`,
      Prisma.sql`dead_lettered_at IS NOT NULL`,
      ...(input.job_id ? [Prisma.sql`job_id = ${input.job_id}`] : []),
      ...(input.before ? [Prisma.sql`dead_lettered_at < ${input.before}`] : []),
    ],
    ' AND ',
  );
  let purged = 0;
  for (;;) {
    // The UPDATE repeats `match` so a row another request took out of the DLQ meanwhile is not
    // counted. The loop ends on a batch that found fewer rows than it could take, not on one that
    // cleared fewer: rows lost to such a race do not mean the DLQ is drained.
    const [batch] = await deps.db.$queryRaw<{ found: number; cleared: number }[]>`
      WITH found AS (
        SELECT id FROM executions WHERE ${match} LIMIT ${PURGE_BATCH}
      ), cleared AS (
        UPDATE executions SET dead_lettered_at = NULL, updated_at = ${deps.clock.now()}
         WHERE id IN (SELECT id FROM found) AND ${match}
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM found)::int AS found, (SELECT count(*) FROM cleared)::int AS cleared`;
    purged += batch.cleared;
    if (batch.found < PURGE_BATCH) break;
  }
  if (purged > 0) await writeAudit(deps.db, actor, { action: 'dlq.purged', targetType: input.job_id ? 'job' : 'workspace', targetId: input.job_id ?? workspaceId, changedFields: fieldsOf(body) });
  return purged;
}
