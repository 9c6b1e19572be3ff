// Peer: the same workload on graphile-worker (Postgres queue with LISTEN/NOTIFY). Each job makes
// the request with the service's HTTP client and inserts its result row. Prints READY when running.
import { Logger, run as runWorker } from 'graphile-worker';
import pg from 'pg';
import { benchHttpClient, call, env, insertResults, onStop, type WorkItem } from './common.js';

const run = env('RUN');
const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const http = benchHttpClient();
// Only warnings and errors: its info lines per job would cost more than the work.
const logger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});
const runner = await runWorker({
  connectionString: env('DATABASE_URL'),
  concurrency: Number(env('CONCURRENCY')),
  noHandleSignals: true,
  pollInterval: 500,
  logger,
  taskList: {
    [env('QUEUE')]: async (payload) => {
      const item = payload as WorkItem;
      const status = await call(http, item);
      await insertResults(db, run, [{ id: item.id, status, finishedAt: new Date() }]);
    },
  },
});
process.stdout.write('READY\n');

onStop(async () => {
  await runner.stop();
  await db.end();
});
