import type { Db, JobRow, Prisma } from '../db/client.js';
import { AppError } from '../errors/app-error.js';

type Tx = Prisma.TransactionClient | Db;

export async function findJob(db: Tx, workspaceId: string, id: string): Promise<JobRow> {
  const job = await db.job.findFirst({ where: { id, workspaceId } });
  if (!job) throw AppError.notFound('job');
  return job;
}

/** Locks the job row for the rest of the transaction, so concurrent changes apply one after another. */
export async function lockJob(tx: Prisma.TransactionClient, workspaceId: string, id: string): Promise<JobRow> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM jobs WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
  if (rows.length === 0) throw AppError.notFound('job');
  return findJob(tx, workspaceId, id);
}

/**
 * Drops fires the scheduler already turned into queued executions ahead of time, so that a
 * paused, edited or deleted schedule does not fire its old slot. A fire is ahead while its first
 * attempt is (its slot plus jitter). The executor skips ids that vanish.
 */
export async function cancelPendingFires(tx: Tx, jobId: string, now: Date): Promise<void> {
  await tx.execution.deleteMany({
    where: { jobId, source: 'schedule', status: 'queued', attemptCount: 0, nextAttemptAt: { gt: now } },
  });
}
