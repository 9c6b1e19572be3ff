import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import type { Deps } from '../deps/deps.js';
import { deadLettered, notInDlq } from './dead-lettered.js';

/** DELETE /v1/dlq/:id (docs/EXECUTIONS.md): the item leaves the DLQ; the execution and its attempts stay. */
export async function removeFromDlq(deps: Pick<Deps, 'db'>, workspaceId: string, id: string, actor?: Actor): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const { count } = await tx.execution.updateMany({ where: { id, workspaceId, ...deadLettered }, data: { deadLetteredAt: null } });
    if (count === 0) throw notInDlq();
    await writeAudit(tx, actor, { action: 'execution.dlq_removed', targetType: 'execution', targetId: id });
  });
}
