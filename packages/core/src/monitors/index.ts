// What other packages may use of monitors/; the other modules here are internal to @cronsvc/core.
export { pauseMonitor, resumeMonitor } from './monitor-lifecycle.js';
export { deleteMonitor, findMonitor, listMonitorPings, listMonitors, serializeMonitor } from './monitor-store.js';
export { pruneMonitorDeliveries } from './prune-monitor-deliveries.js';
export { BODY_PREVIEW_BYTES, pingTokenKnown, PINGS_KEPT, recordPing, type PingDetails } from './record-ping.js';
export { downDeadline, nextExpectedAfter } from './monitor-schedule.js';
export { revealPingToken } from './ping-token.js';
export { createMonitor, updateMonitor } from './save-monitor.js';
export { SWEEP_SQL, sweepMonitors } from './sweep-monitors.js';
