// What other packages may use of monitors/; the other modules here are internal to @cronsvc/core.
export { pauseMonitor, resumeMonitor } from './monitor-lifecycle.js';
export { deleteMonitor, findMonitor, listMonitors, serializeMonitor } from './monitor-store.js';
export { pruneMonitorDeliveries } from './prune-monitor-deliveries.js';
export { pingTokenKnown, recordPing } from './record-ping.js';
export { revealPingToken } from './ping-token.js';
export { createMonitor, updateMonitor } from './save-monitor.js';
export { SWEEP_SQL, sweepMonitors } from './sweep-monitors.js';
