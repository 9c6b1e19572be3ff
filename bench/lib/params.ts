// Sizes of every scenario, full and --quick, and the targets they are judged against
// (docs/BENCHMARKS.md lists them).
import type { LatencyGrowth } from './scaling.js';
import type { Target } from './verdict.js';

export interface Params {
  mode: 'full' | 'quick';
  apiE2e: {
    /** one_time jobs created (and run-now calls made) in each closed-loop run. */
    executions: number;
    /** Requests in flight of the closed-loop runs. */
    inFlight: number;
    /** Give up on a closed-loop run after this long. */
    timeoutMs: number;
    /** Rate of the paced latency runs. */
    pacedRate: number;
    durationSeconds: number;
    warmupSeconds: number;
    connections: number;
  };
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
  idleMemory: {
    /** Seconds from start (every app answering) to the reading; the targets are stated at 20. */
    idleSeconds: number;
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
  notifications: {
    /** Failing executions, each with two rules (webhook + chat_b). */
    executions: number;
    /** Give up when no delivery is sent for this long. */
    stallMs: number;
  };
  monitors: {
    monitors: number;
    /** How many of them reach their deadline at the same instant. */
    goingDown: number;
    /** The notifier's CPU is measured over this long with nothing due. */
    idleWindowMs: number;
  };
  workflows: {
    /** Three-step runs (http, wait_for_webhook resumed by the load process, http). */
    runs: number;
    /** Triggers posted at once to one webhook_trigger job. */
    triggers: number;
    triggerConnections: number;
    /** Give up on a part of the scenario after this long. */
    timeoutMs: number;
  };
  isolation: {
    /** Jobs of 1 MiB, and trigger inputs of 1 MiB, in the attacking workspace: a page of each. */
    items: number;
    /** Connections pulling those pages flat out, half jobs, half executions. */
    attackers: number;
    /** GET /v1/jobs?limit=5 of the other workspace, paced. */
    victimRate: number;
    durationSeconds: number;
    warmupSeconds: number;
  };
  scaling: {
    /** Active schedules, smallest first; each size adds to the one before. */
    schedules: number[];
    /** Of each size's new schedules, how many are due inside its window (the rest far ahead). */
    firing: number;
    /** One-shot jobs due evenly over each window, whose fire lag is the figure. */
    probes: number;
    windowMs: number;
    /** How long after the window a fire may still arrive before it is a miss. */
    graceMs: number;
    /** one_time jobs created through POST /v1/jobs at each size, until every one has succeeded. */
    burst: number;
    inFlight: number;
    /** The scheduler's and Postgres's CPU is measured over this long with nothing due. */
    idleWindowMs: number;
    /** Stored executions, smallest first: the history of one busy workspace at two ages. */
    executions: number[];
    /** GET /v1/executions and GET /v1/dlq pages at this rate, paced. */
    pageRate: number;
    pageSeconds: number;
    /** Give up on a burst after this long. */
    timeoutMs: number;
  };
  jobStats: {
    /** Stored executions, smallest first; each size spans the last 30 days (a busier workspace, not an older one). */
    executions: number[];
    /** Durations of the seeded executions, evenly spread: what sets the rollup's rows per job and hour. */
    durationMs: { min: number; max: number };
    /** Jobs the requests go round (the history has 1,000). */
    jobs: number;
    /** GET /v1/jobs/:id/stats per window at this rate, paced. */
    rate: number;
    durationSeconds: number;
  };
}

export const FULL: Params = {
  mode: 'full',
  apiE2e: { executions: 20_000, inFlight: 32, timeoutMs: 300_000, pacedRate: 500, durationSeconds: 15, warmupSeconds: 2, connections: 50 },
  throughput: { executions: 20_000, executorCounts: [1, 2], workspaceCounts: [1, 100], workerConcurrency: 200, stallMs: 60_000 },
  fireLag: { instant: 10_000, spread: 10_000, spreadOverMs: 60_000, single: 60, singleEveryMs: 500, graceMs: 30_000 },
  footprint: { schedules: [100_000, 1_000_000], executions: 1_000_000, idleWindowMs: 30_000 },
  idleMemory: { idleSeconds: 20 },
  api: { executions: 1_000_000, postRate: 500, getRate: 50, durationSeconds: 15, warmupSeconds: 2, connections: 50 },
  notifications: { executions: 10_000, stallMs: 30_000 },
  monitors: { monitors: 100_000, goingDown: 1_000, idleWindowMs: 10_000 },
  workflows: { runs: 1_000, triggers: 10_000, triggerConnections: 100, timeoutMs: 300_000 },
  isolation: { items: 100, attackers: 24, victimRate: 20, durationSeconds: 15, warmupSeconds: 2 },
  scaling: {
    schedules: [1_000, 10_000, 100_000],
    firing: 500,
    probes: 50,
    windowMs: 20_000,
    graceMs: 30_000,
    burst: 5_000,
    inFlight: 32,
    idleWindowMs: 10_000,
    executions: [1_000_000, 10_000_000],
    pageRate: 20,
    pageSeconds: 10,
    timeoutMs: 180_000,
  },
  jobStats: { executions: [1_000_000, 10_000_000], durationMs: { min: 100, max: 700 }, jobs: 50, rate: 20, durationSeconds: 15 },
};

export const QUICK: Params = {
  mode: 'quick',
  apiE2e: { executions: 3_000, inFlight: 32, timeoutMs: 120_000, pacedRate: 500, durationSeconds: 3, warmupSeconds: 1, connections: 50 },
  throughput: { executions: 1_500, executorCounts: [1, 2], workspaceCounts: [1, 100], workerConcurrency: 200, stallMs: 15_000 },
  fireLag: { instant: 1_000, spread: 600, spreadOverMs: 10_000, single: 20, singleEveryMs: 250, graceMs: 10_000 },
  footprint: { schedules: [5_000, 20_000], executions: 20_000, idleWindowMs: 5_000 },
  idleMemory: { idleSeconds: 20 },
  api: { executions: 20_000, postRate: 500, getRate: 50, durationSeconds: 3, warmupSeconds: 1, connections: 50 },
  notifications: { executions: 1_000, stallMs: 15_000 },
  monitors: { monitors: 10_000, goingDown: 200, idleWindowMs: 5_000 },
  workflows: { runs: 200, triggers: 2_000, triggerConnections: 100, timeoutMs: 120_000 },
  isolation: { items: 100, attackers: 24, victimRate: 20, durationSeconds: 5, warmupSeconds: 1 },
  scaling: {
    schedules: [1_000, 5_000, 20_000],
    firing: 200,
    probes: 20,
    windowMs: 8_000,
    graceMs: 10_000,
    burst: 1_500,
    inFlight: 32,
    idleWindowMs: 5_000,
    executions: [100_000, 1_000_000],
    pageRate: 20,
    // 100 requests: their p99 is the second slowest, not the slowest.
    pageSeconds: 5,
    timeoutMs: 120_000,
  },
  jobStats: { executions: [100_000, 1_000_000], durationMs: { min: 100, max: 700 }, jobs: 50, rate: 20, durationSeconds: 10 },
};

/** The targets, in one place so the docs and the table cannot disagree. */
export const TARGETS = {
  endToEndPerSecond: { op: '>=', value: 1_500 },
  embeddedEndToEndPerSecond: { op: '>=', value: 500 },
  endToEndCallP99Ms: { op: '<', value: 50 },
  throughputPerSecond: { op: '>=', value: 1_000 },
  ratioToCeiling: { op: '>=', value: 0.6 },
  /** The service's public path against the minimal pipeline built from the same parts, in the same run. */
  ratioToMinimalPipeline: { op: '>=', value: 0.6 },
  aheadOfPeer: { op: '>', value: 1 },
  singleP99Ms: { op: '<', value: 50 },
  instantP50Ms: { op: '<', value: 250 },
  instantP99Ms: { op: '<', value: 2_000 },
  instantMaxMs: { op: '<', value: 5_000 },
  zero: { op: '<=', value: 0 },
  redisBytesPerSchedule: { op: '<=', value: 1_024 },
  schedulerIdleCpuPercent: { op: '<', value: 10 },
  /** RSS added up, 20 s after start: the four apps alone as docker-compose.yml runs them, and `npm start`'s process group. */
  idleAppsAloneMb: { op: '<=', value: 350 },
  idleNpmStartMb: { op: '<=', value: 450 },
  postJobsP99Ms: { op: '<', value: 20 },
  executionsPageP99Ms: { op: '<', value: 50 },
  /** GET /v1/jobs/:id/stats at the largest stored history, every window. */
  jobStatsP99Ms: { op: '<', value: 50 },
  deliveriesPerSecond: { op: '>=', value: 1_000 },
  eventToSentP99Ms: { op: '<', value: 2_000 },
  onDownLateMaxMs: { op: '<', value: 2_000 },
  resumeToNextStepP99Ms: { op: '<', value: 100 },
  /** Another workspace's small list while one workspace pulls its largest pages at once. */
  otherWorkspaceP99Ms: { op: '<', value: 100 },
  /** Bytes or idle CPU per schedule or execution, or CPU per execution of a burst, at the largest size over the smallest: at most linear, with room for noise. */
  perUnitGrowth: { op: '<=', value: 1.5 },
  /** Executions/s at the largest size over the smallest. */
  rateGrowth: { op: '>=', value: 0.7 },
} satisfies Record<string, Target>;

/**
 * How far a latency may grow from the smallest size to the largest (the bound is set by the
 * smallest size's figure, so it is not a fixed target): fire lag and list pages should stay flat;
 * twice plus a little absorbs the noise of a shared machine, a latency that grew with the count
 * does not fit in it.
 */
export const LATENCY_GROWTH = {
  fireLag: { factor: 2, slackMs: 50 },
  page: { factor: 2, slackMs: 20 },
} satisfies Record<string, LatencyGrowth>;
