// What other packages may use of fires/; the other modules here are internal to @cronsvc/core.
export { jobFire, type LedgerFire, listFires, listJobFires, missedCounts } from './list-fires.js';
export { pruneFireGaps } from './prune-fire-gaps.js';
