// What the supervisor of `npm start` adds so that an operator sees the whole service through the
// API: one scrape of the API's /metrics covers every process, and the API's /readyz reports each
// worker (docs/adr/017-operating-signals.md).
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Logger, Runtime } from '@cronsvc/core';
// The supervisor loads only core's start-up entry (no Prisma, BullMQ or HTTP client): its children do the work.
import { markProcess, serveScrapes, startHeartbeat, supervisedWorkers, SUPERVISED_ENV, WORKER_KINDS } from '@cronsvc/core/start-up';

/** The id heartbeats of this supervisor's workers carry (also ALL_IN_ONE's, which is its own supervisor). */
export function newSupervisorId(): string {
  return `sup-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export interface ChildSignals {
  /** The environment that ties a child to this supervisor. */
  env: Record<string, string>;
  /** The children's stdio: the supervisor's own, and an IPC channel for the metrics. */
  stdio: StdioOptions;
  /** To be called for each child launched, restarts included. */
  adopt(child: ChildProcess): void;
  close(): Promise<void>;
}

/**
 * The supervisor's side: it answers the API's scrape with the sum of every child's metrics and
 * its own, and when a child exits it removes that process's heartbeat rows, so readiness reports
 * a dead worker at once rather than when its heartbeat goes stale.
 */
export function superviseChildren(supervisorId: string, databaseUrl: string, logger: Logger): ChildSignals {
  markProcess('supervisor');
  const children = new Set<ChildProcess>();
  const scrapes = serveScrapes(() => children);
  const workers = supervisedWorkers(databaseUrl, supervisorId);
  return {
    env: { [SUPERVISED_ENV]: supervisorId },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    adopt(child) {
      children.add(child);
      scrapes.watch(child);
      child.once('exit', () => {
        children.delete(child);
        if (child.pid === undefined) return;
        workers.forget(child.pid).catch((error) =>
          logger.warn('could not remove the heartbeat of an exited process; readiness reports it once it is stale', { pid: child.pid, error: (error as Error).message }),
        );
      });
    },
    close: () => workers.close(),
  };
}

/** ALL_IN_ONE: the id of the notifier's heartbeat, which its delivery claims name (the executor's is the runtime's). */
export function allInOneNotifierId(runtime: Runtime): string {
  return `${runtime.workerId}-notifier`;
}

/** ALL_IN_ONE: one process runs every app, so it beats for each worker and counts as each app. */
export async function allInOneSignals(runtime: Runtime): Promise<{ stop(): Promise<void> }> {
  for (const app of ['api', ...WORKER_KINDS] as const) markProcess(app);
  // The executor's and the notifier's beats carry the ids their claims name (docs/adr/018-liveness-based-reclaim.md).
  const ids: Partial<Record<(typeof WORKER_KINDS)[number], string>> = { executor: runtime.workerId, notifier: allInOneNotifierId(runtime) };
  const heartbeats = await Promise.all(WORKER_KINDS.map((kind) => startHeartbeat(runtime, kind, runtime.config.supervisor, ids[kind])));
  return {
    async stop() {
      await Promise.all(heartbeats.map((h) => h.stop()));
    },
  };
}
