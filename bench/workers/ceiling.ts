// The ceiling: the least a BullMQ-based executor can do for the same workload. A BullMQ worker
// takes a job, makes the same request with the service's HTTP client, and records the result
// with one batched INSERT per batch of results. No claim, no lease, no attempt row, no signing.
// Prints READY once its worker is running.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { BatchRecorder, benchHttpClient, call, env, onStop, type WorkItem } from './common.js';

const concurrency = Number(env('CONCURRENCY'));
const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 4 });
const recorder = new BatchRecorder(db, env('RUN'));
const http = benchHttpClient();
const connection = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: null });

const worker = new Worker<WorkItem>(
  env('QUEUE'),
  async (job) => {
    const status = await call(http, job.data);
    await recorder.add({ id: job.data.id, status });
  },
  { connection, prefix: env('REDIS_PREFIX'), concurrency, autorun: true },
);
worker.on('error', (error) => process.stderr.write(`ceiling worker error: ${error.message}\n`));
await worker.waitUntilReady();
process.stdout.write('READY\n');

onStop(async () => {
  await worker.close();
  connection.disconnect();
  await db.end();
});
