import type { Actor } from '../access/actor.js';
import { writeAudit } from '../access/audit.js';
import { AppError } from '../errors/app-error.js';
import type { Deps } from '../deps/deps.js';
import { findMonitor, type MonitorRow } from './monitor-store.js';
import { downDeadline, nextExpectedAfter } from './monitor-schedule.js';

/** A paused monitor never goes down; pings are still recorded. 409 when it is paused already. */
export async function pauseMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string, actor?: Actor): Promise<MonitorRow> {
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.monitor.updateMany({
      where: { id, workspaceId, state: { not: 'paused' } },
      data: { state: 'paused', nextDueAt: null, nextExpectedAt: null, updatedAt: deps.clock.now() },
    });
    const monitor = await findMonitor(tx, workspaceId, id);
    if (count === 0) throw AppError.invalidState('the monitor is paused already');
    await writeAudit(tx, actor, { action: 'monitor.paused', targetType: 'monitor', targetId: id, changedFields: ['state'] });
    return monitor;
  });
}

/**
 * Back to `new` if it was never pinged, else `up` with its window starting now (a monitor that
 * was down before the pause gets a fresh window, not an immediate second on_down; a run started
 * before the pause no longer counts). 409 unless paused.
 */
export async function resumeMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string, actor?: Actor): Promise<MonitorRow> {
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM monitors WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    const monitor = await findMonitor(tx, workspaceId, id);
    if (monitor.state !== 'paused') throw AppError.invalidState(`the monitor is ${monitor.state}; only a paused monitor can be resumed`);
    await writeAudit(tx, actor, { action: 'monitor.resumed', targetType: 'monitor', targetId: monitor.id, changedFields: ['state'] });
    if (monitor.lastPingAt === null) {
      return tx.monitor.update({ where: { id: monitor.id }, data: { state: 'new', runStartedAt: null, updatedAt: now } });
    }
    const nextExpectedAt = nextExpectedAfter(monitor, now);
    return tx.monitor.update({
      where: { id: monitor.id },
      data: {
        state: 'up',
        windowStartAt: now,
        nextExpectedAt,
        nextDueAt: downDeadline(nextExpectedAt, monitor.graceSec, { startedAt: null, maxDurationSec: null }),
        runStartedAt: null,
        updatedAt: now,
      },
    });
  });
}
