import Joi from 'joi';
import type { Db, Prisma } from '../db/client.js';
import { AppError } from '../errors/app-error.js';

/**
 * An execution is in the dead-letter queue while dead_lettered_at is set (docs/EXECUTIONS.md): the executor sets
 * it on every failure, replaying or removing the item clears it, and the record itself stays.
 */
export const deadLettered = { deadLetteredAt: { not: null } } satisfies Prisma.ExecutionWhereInput;

/** One answer for "no such item" whether the id is unknown, another workspace's, or not dead-lettered. */
export function notInDlq(): AppError {
  return new AppError('not_found', 'execution not found in the dead-letter queue');
}

export const jobIdSchema = Joi.string().min(1).max(100);

/**
 * A job_id in a DLQ request body must name a job of the workspace. Like any other reference in a
 * body (a rule's channel_id) an unknown one is a 400 on that field, not a 404 of the URL.
 */
export async function assertJobInWorkspace(db: Db, workspaceId: string, jobId: string): Promise<void> {
  const job = await db.job.findFirst({ where: { id: jobId, workspaceId }, select: { id: true } });
  if (!job) throw AppError.validation([{ path: 'job_id', message: 'no job with this id in the workspace' }]);
}
