import { runService } from '@cronsvc/core';
import { startExecutor } from './executor.js';

// One connection per concurrent attempt at most, and a few for lease renewals.
await runService('executor', startExecutor, { dbPoolSize: (config) => Math.min(config.executorConcurrency + 5, 50) });
