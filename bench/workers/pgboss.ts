// Peer: the same workload on pg-boss (Postgres-only queue). Each job makes the request with the
// service's HTTP client and inserts its result row; pg-boss completes the job after the handler.
// Concurrency: LOOPS work() loops fetching BATCH jobs each (pg-boss 10 has no per-job concurrency
// option; this is its documented way to run jobs in parallel). Prints READY when polling.
import PgBoss from 'pg-boss';
import pg from 'pg';
import { benchHttpClient, call, env, insertResults, onStop, type WorkItem } from './common.js';

const concurrency = Number(env('CONCURRENCY'));
const loops = 5;
const batchSize = Math.max(1, Math.round(concurrency / loops));
const run = env('RUN');
const queue = env('QUEUE');
const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const http = benchHttpClient();
const boss = new PgBoss({ connectionString: env('DATABASE_URL'), max: 10 });
boss.on('error', (error) => process.stderr.write(`pg-boss error: ${error.message}\n`));
await boss.start();
await boss.createQueue(queue);
for (let i = 0; i < loops; i++) {
  await boss.work<WorkItem>(queue, { batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await Promise.all(
      jobs.map(async (job) => {
        const status = await call(http, job.data);
        await insertResults(db, run, [{ id: job.data.id, status, finishedAt: new Date() }]);
      }),
    );
  });
}
process.stdout.write('READY\n');

onStop(async () => {
  await boss.stop({ graceful: false, wait: true });
  await db.end();
});
