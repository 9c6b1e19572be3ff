import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { ExecutionRow } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';

export interface ParkResult {
  execution: ExecutionRow;
  /** False when an attempt is in flight: the execution parks once that attempt is recorded (202). */
  parked: boolean;
}

/**
 * POST /v1/executions/:id/park (docs/EXECUTIONS.md). A queued execution, or a running one with no
 * attempt in flight (waiting out a backoff, or whose worker died), parks at once. One with an
 * attempt in flight is marked, and the executor parks it after that attempt unless the attempt
 * ends the execution. Each step is one conditional UPDATE, so a worker claiming the execution
 * at the same moment either sees it parked or makes it "in flight", never both.
 */
export async function parkExecution(deps: Pick<Deps, 'db' | 'queues' | 'clock' | 'logger'>, workspaceId: string, id: string, actor?: Actor): Promise<ParkResult> {
  const now = deps.clock.now();
  // Whether the lease ran out is judged on the database's clock, like every lease decision (ADR 006).
  // A step-driven run's deadline keeps running while it is parked: it becomes the park's timer.
  const event = { action: 'execution.parked', targetType: 'execution', targetId: id };
  const atOnce = await deps.db.$transaction(async (tx) => {
    const parked = await tx.$executeRaw`
      UPDATE executions SET status = 'waiting', waiting_reason = 'manual', locked_until = NULL, park_requested = false,
             waiting_expires_at = deadline_at, updated_at = ${now}
       WHERE id = ${id} AND workspace_id = ${workspaceId}
         AND (status = 'queued' OR (status = 'running' AND (locked_until IS NULL OR locked_until < now())))`;
    if (parked > 0) await writeAudit(tx, actor, event);
    return parked;
  });
  if (atOnce === 0) {
    const later = await deps.db.$transaction(async (tx) => {
      const marked = await tx.execution.updateMany({ where: { id, workspaceId, status: 'running' }, data: { parkRequested: true } });
      if (marked.count > 0) await writeAudit(tx, actor, event);
      return marked;
    });
    const execution = await deps.db.execution.findFirst({ where: { id, workspaceId } });
    if (!execution) throw AppError.notFound('execution');
    if (later.count === 0) throw AppError.invalidState(`execution is ${execution.status}; only a queued or running execution can be parked`);
    return { execution, parked: false };
  }
  const execution = await deps.db.execution.findFirstOrThrow({ where: { id, workspaceId } });
  try {
    await deps.queues.cancelExecutions([{ executionId: id, attempt: execution.attemptCount + 1 }]);
  } catch (error) {
    // Harmless if it stays queued: the executor skips an execution that is waiting.
    deps.logger.warn('could not take a parked execution off the queue', { executionId: id, error: (error as Error).message });
  }
  return { execution, parked: true };
}
