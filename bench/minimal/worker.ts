// The minimal pipeline's worker: a BullMQ worker that calls the target with a bare node:http
// request (a keep-alive agent, the execution id header) and records each result with one batched
// INSERT per batch (BatchRecorder), acknowledging a job only once its row is committed. No claim,
// lease, signing, attempt row or outbox. Prints READY once its worker runs.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import http from 'node:http';
import pg from 'pg';
import { BatchRecorder, env, onStop, type WorkItem } from '../workers/common.js';

const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 4 });
const recorder = new BatchRecorder(db, env('RUN'));
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(env('CONCURRENCY')) });
const connection = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: null });

function call(item: WorkItem): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(item.url, { method: 'GET', agent, headers: { 'X-Cron-Service-Execution-Id': item.id }, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

const worker = new Worker<WorkItem>(
  env('QUEUE'),
  async (job) => {
    const status = await call(job.data);
    await recorder.add({ id: job.data.id, status });
  },
  { connection, prefix: env('REDIS_PREFIX'), concurrency: Number(env('CONCURRENCY')), autorun: true },
);
worker.on('error', (error) => process.stderr.write(`minimal worker error: ${error.message}\n`));
await worker.waitUntilReady();
process.stdout.write('READY\n');

onStop(async () => {
  await worker.close();
  connection.disconnect();
  agent.destroy();
  await db.end();
});
