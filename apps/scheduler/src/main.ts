import { runService } from '@cronsvc/core';
import { startScheduler } from './scheduler.js';

await runService('scheduler', startScheduler, { dbPoolSize: () => 5 });
