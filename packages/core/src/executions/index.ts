// What other packages may use of executions/; the other modules here are internal to @cronsvc/core.
export { executionRow } from './create-executions.js';
export { durationClass, JOB_STATS_KEPT_DAYS, jobStats, pruneJobStats, rollupWrite } from './job-stats.js';
export { type ExecutionWithAttempts, getExecution, listExecutions } from './list-executions.js';
export { parkExecution } from './park-execution.js';
export { pruneExecutions, retentionCutoff } from './prune-executions.js';
export { type Outcome, recentOutcomes } from './recent-outcomes.js';
export { reclaimExecutions, type Reclaimed } from './reclaim-executions.js';
export { reconcileQueue } from './reconcile-queue.js';
export { resumeExecution } from './resume-execution.js';
export { runNow } from './run-now.js';
export { serializeExecution, serializeExecutionSummary } from './serialize-execution.js';
