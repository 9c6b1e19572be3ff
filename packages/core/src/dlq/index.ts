// What other packages may use of dlq/; the other modules here are internal to @cronsvc/core.
export { dlqStats } from './dlq-stats.js';
export { listDlq } from './list-dlq.js';
export { purgeDlq } from './purge-dlq.js';
export { removeFromDlq } from './remove-from-dlq.js';
export { replayBatch } from './replay-batch.js';
export { replayExecution } from './replay-execution.js';
