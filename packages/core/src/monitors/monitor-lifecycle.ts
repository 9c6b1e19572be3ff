import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { findMonitor, type MonitorRow } from './monitor-store.js';

/** A paused monitor never goes down; pings are still recorded. 409 when it is paused already. */
export async function pauseMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string): Promise<MonitorRow> {
  const { count } = await deps.db.monitor.updateMany({
    where: { id, workspaceId, state: { not: 'paused' } },
    data: { state: 'paused', nextDueAt: null, updatedAt: deps.clock.now() },
  });
  const monitor = await findMonitor(deps.db, workspaceId, id);
  if (count === 0) throw AppError.invalidState('the monitor is paused already');
  return monitor;
}

/**
 * Back to `new` if it was never pinged, else `up` with its window starting now (a monitor that
 * was down before the pause gets a fresh window, not an immediate second on_down). 409 unless paused.
 */
export async function resumeMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string): Promise<MonitorRow> {
  const now = deps.clock.now();
  const count = await deps.db.$executeRaw`
    UPDATE monitors SET
      state = CASE WHEN last_ping_at IS NULL THEN 'new' ELSE 'up' END,
      next_due_at = CASE WHEN last_ping_at IS NULL THEN NULL ELSE ${now}::timestamptz + make_interval(secs => expected_interval_sec + grace_sec) END,
      updated_at = ${now}
    WHERE id = ${id} AND workspace_id = ${workspaceId} AND state = 'paused'`;
  const monitor = await findMonitor(deps.db, workspaceId, id);
  if (count === 0) throw AppError.invalidState(`the monitor is ${monitor.state}; only a paused monitor can be resumed`);
  return monitor;
}
