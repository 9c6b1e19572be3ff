import { runService } from '@cronsvc/core';
import { startExecutor } from './executor.js';

// An attempt holds a connection only for its claim and its record, never across the HTTP call,
// so a small pool serves many concurrent attempts and leaves Postgres connections for replicas.
await runService('executor', startExecutor, { dbPoolSize: (config) => Math.min(config.executorConcurrency, 16) });
