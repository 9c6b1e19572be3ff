// What other packages may use of deliveries/; the other modules here are internal to @cronsvc/core.
export { listDeliveries, retryDelivery, serializeDelivery } from './deliveries-api.js';
export { reconcileDeliveries } from './reconcile-deliveries.js';
export { dueDeliveries, reclaimDeliveries, releaseDeliveries, type ReclaimedDeliveries } from './reclaim-deliveries.js';
export { sendDelivery } from './send-delivery.js';
