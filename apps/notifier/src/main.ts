import { runService } from '@cronsvc/core';
import { startNotifier } from './notifier.js';

await runService('notifier', startNotifier, { dbPoolSize: () => 5 });
