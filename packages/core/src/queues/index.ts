// What other packages may use of queues/; the other modules here are internal to @cronsvc/core.
export { catalog, deliveryJobId, type DeliveryPayload, executionJobId, type ExecutionPayload } from './catalog.js';
export { createQueuePool, openQueue, type QueueConnection } from './queue-connection.js';
export { queueSentinelKey, watchQueueLoss, type QueueLossReason, type QueueLossWatch } from './queue-loss.js';
export { createQueues, keepCompleted, type Queues } from './queues.js';
export { createWorker } from './workers.js';
