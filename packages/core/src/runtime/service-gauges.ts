import { Gauge, Registry } from 'prom-client';
import type { Deps } from '../deps/deps.js';
import { checkReadiness, oldestDueFireAgeSeconds, within, type WorkerScope } from './readiness.js';

/**
 * Gauges of the whole service rather than of one process: what the queues hold, the DLQ, late
 * fires, deliveries waiting, monitors down, and readiness. They are read from the stores at each
 * scrape by the process that answers it (the API), so they are never added up across processes.
 */
export interface ServiceGauges {
  registry: Registry;
  /** Reads the stores and sets every gauge; a store that does not answer leaves its gauges out. */
  refresh(): Promise<void>;
}

const STORE_SQL = `
  SELECT (SELECT count(*) FROM executions WHERE dead_lettered_at IS NOT NULL)::float8 AS dlq,
         (SELECT count(*) FROM deliveries WHERE status IN ('pending', 'processing'))::float8 AS deliveries_pending,
         (SELECT count(*) FROM monitors WHERE state = 'down')::float8 AS monitors_down,
         (SELECT count(*) FROM host_limits WHERE cooldown_until > now())::float8 AS hosts_cooling_down`;

export function createServiceGauges(deps: Pick<Deps, 'pool' | 'queues' | 'config' | 'logger'>, scope: WorkerScope): ServiceGauges {
  const registry = new Registry();
  const registers = [registry];
  // 'max' where the supervisor adds up its children: only one process sets these.
  const aggregator = 'max' as const;
  const queueJobs = new Gauge({ name: 'cronsvc_queue_jobs', help: 'Queue jobs by queue and state.', labelNames: ['queue', 'state'] as const, registers, aggregator });
  const dlq = new Gauge({ name: 'cronsvc_dlq_executions', help: 'Executions in the dead-letter queue.', registers, aggregator });
  const lateFire = new Gauge({
    name: 'cronsvc_oldest_due_fire_age_seconds',
    help: 'How late the oldest fire that is due but not yet turned into an execution is (0 when none is).',
    registers,
    aggregator,
  });
  const deliveriesPending = new Gauge({ name: 'cronsvc_deliveries_pending', help: 'Deliveries pending or being sent.', registers, aggregator });
  const monitorsDown = new Gauge({ name: 'cronsvc_monitors_down', help: 'Heartbeat monitors that are down.', registers, aggregator });
  const hostsCoolingDown = new Gauge({ name: 'cronsvc_hosts_cooling_down', help: "Hosts (per workspace) whose Retry-After cool-down is running.", registers, aggregator });
  const ready = new Gauge({ name: 'cronsvc_ready', help: '1 when /readyz answers ready, else 0.', registers, aggregator });
  const checks = new Gauge({ name: 'cronsvc_readiness_check', help: 'Each readiness check: 1 ok, 0 failing.', labelNames: ['check'] as const, registers, aggregator });

  const readStores = async () => {
    const [{ rows }, lag] = await Promise.all([deps.pool.query<{ dlq: number; deliveries_pending: number; monitors_down: number; hosts_cooling_down: number }>(STORE_SQL), oldestDueFireAgeSeconds(deps)]);
    dlq.set(rows[0].dlq);
    deliveriesPending.set(rows[0].deliveries_pending);
    monitorsDown.set(rows[0].monitors_down);
    hostsCoolingDown.set(rows[0].hosts_cooling_down);
    lateFire.set(lag);
  };
  const readQueues = async () => {
    for (const { queue, counts } of await deps.queues.jobCounts()) {
      for (const [state, n] of Object.entries(counts)) queueJobs.set({ queue, state }, n);
    }
  };
  const readReadiness = async () => {
    const readiness = await checkReadiness(deps, scope);
    ready.set(readiness.ready ? 1 : 0);
    for (const [check, result] of Object.entries(readiness.checks)) checks.set({ check }, result === 'ok' ? 1 : 0);
  };
  let warnedAt = 0;
  return {
    registry,
    async refresh() {
      for (const gauge of [queueJobs, dlq, lateFire, deliveriesPending, monitorsDown, hostsCoolingDown, ready, checks]) gauge.reset();
      const results = await Promise.allSettled([within(readStores(), 2_000), within(readQueues(), 2_000), readReadiness()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      // At most one warning a minute while a store is down: scrapes come every few seconds.
      if (failed && Date.now() - warnedAt > 60_000) {
        warnedAt = Date.now();
        deps.logger.warn('metrics: a store did not answer; its gauges are left out of this scrape', { error: (failed.reason as Error).message });
      }
    },
  };
}
