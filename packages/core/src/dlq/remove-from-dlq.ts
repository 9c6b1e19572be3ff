import type { Deps } from '../deps/deps.js';
import { deadLettered, notInDlq } from './dead-lettered.js';

/** DELETE /v1/dlq/:id (docs/EXECUTIONS.md): the item leaves the DLQ; the execution and its attempts stay. */
export async function removeFromDlq(deps: Pick<Deps, 'db'>, workspaceId: string, id: string): Promise<void> {
  const { count } = await deps.db.execution.updateMany({ where: { id, workspaceId, ...deadLettered }, data: { deadLetteredAt: null } });
  if (count === 0) throw notInDlq();
}
