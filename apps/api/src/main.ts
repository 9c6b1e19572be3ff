import { runService } from '@cronsvc/core';
import { startApi } from './server.js';

await runService('api', startApi, { dbPoolSize: () => 20 });
