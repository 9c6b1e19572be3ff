import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Router } from 'express';
import type { Queues } from '@cronsvc/core';
import { DASHBOARD_PATH } from './dashboard-gate.js';

/**
 * bull-board, so an operator can see waiting, delayed, active, and recent completed and failed
 * queue jobs, behind dashboardGate (dashboard-gate.ts). Read-only (bull-board answers 405 to
 * retry, promote, remove, clean, pause) unless QUEUE_DASHBOARD_ACTIONS=true: whoever learns the
 * dashboard's password should not be able to pause the queues or drop work in flight (the
 * reconcilers would queue it again, but not at once).
 */
export function queueDashboard(queues: Queues, options: { actions: boolean }): Router {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  const readOnlyMode = !options.actions;
  createBullBoard({ queues: queues.dashboardQueues().map((q) => new BullMQAdapter(q, { readOnlyMode })), serverAdapter: adapter });
  return adapter.getRouter() as Router;
}
