// Sizes of every scenario, full (issue 5) and --quick, and the targets of issue 5.
import type { Target } from './verdict.js';

export interface Params {
  mode: 'full' | 'quick';
  throughput: {
    executions: number;
    /** Executor counts of the service runs. */
    executorCounts: number[];
    /**
     * Workspaces the executions of each service run are spread over, round-robin: the executor
     * keeps a connection pool per workspace, so 100 measures what those pools cost against 1.
     */
    workspaceCounts: number[];
    /** In-flight requests of the ceiling and the peers; the service's EXECUTOR_CONCURRENCY default. */
    workerConcurrency: number;
    /** Give up when no unit completes for this long. */
    stallMs: number;
  };
  fireLag: {
    instant: number;
    spread: number;
    spreadOverMs: number;
    single: number;
    singleEveryMs: number;
    /** How long after the last slot a request may still arrive before it is a miss. */
    graceMs: number;
  };
  footprint: {
    schedules: number[];
    executions: number;
    idleWindowMs: number;
  };
  api: {
    executions: number;
    postRate: number;
    getRate: number;
    durationSeconds: number;
    /** Unmeasured load before each measured run. */
    warmupSeconds: number;
    connections: number;
  };
}

export const FULL: Params = {
  mode: 'full',
  throughput: { executions: 20_000, executorCounts: [1, 2], workspaceCounts: [1, 100], workerConcurrency: 200, stallMs: 60_000 },
  fireLag: { instant: 10_000, spread: 10_000, spreadOverMs: 60_000, single: 60, singleEveryMs: 500, graceMs: 30_000 },
  footprint: { schedules: [100_000, 1_000_000], executions: 1_000_000, idleWindowMs: 30_000 },
  api: { executions: 1_000_000, postRate: 500, getRate: 50, durationSeconds: 15, warmupSeconds: 2, connections: 50 },
};

export const QUICK: Params = {
  mode: 'quick',
  throughput: { executions: 1_500, executorCounts: [1, 2], workspaceCounts: [1, 100], workerConcurrency: 200, stallMs: 15_000 },
  fireLag: { instant: 1_000, spread: 600, spreadOverMs: 10_000, single: 20, singleEveryMs: 250, graceMs: 10_000 },
  footprint: { schedules: [5_000, 20_000], executions: 20_000, idleWindowMs: 5_000 },
  api: { executions: 20_000, postRate: 500, getRate: 50, durationSeconds: 3, warmupSeconds: 1, connections: 50 },
};

/** The targets of issue 5, in one place so the docs and the table cannot disagree. */
export const TARGETS = {
  throughputPerSecond: { op: '>=', value: 1_000 },
  ratioToCeiling: { op: '>=', value: 0.6 },
  aheadOfPeer: { op: '>', value: 1 },
  singleP99Ms: { op: '<', value: 50 },
  instantP50Ms: { op: '<', value: 250 },
  instantP99Ms: { op: '<', value: 2_000 },
  instantMaxMs: { op: '<', value: 5_000 },
  zero: { op: '<=', value: 0 },
  redisBytesPerSchedule: { op: '<=', value: 1_024 },
  schedulerIdleCpuPercent: { op: '<', value: 10 },
  postJobsP99Ms: { op: '<', value: 20 },
  executionsPageP99Ms: { op: '<', value: 50 },
} satisfies Record<string, Target>;
