// The minimal pipeline's front: the least an HTTP front can do for the public path, built from the
// parts the service uses. POST /v1/jobs parses the body, and the requests arriving together are
// stored with one INSERT and queued with one BullMQ addBulk before each is answered 201; GET
// /v1/executions?status=succeeded counts the calls recorded. No auth, no validation, no outbox,
// no counters: what is left is the floor the service's own front is measured against
// (bench/scenarios/api-e2e.ts). Prints READY <port> once it listens.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { env, onStop, type WorkItem } from '../workers/common.js';

const run = env('RUN');
const db = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 8 });
const connection = new Redis(env('REDIS_URL'), { maxRetriesPerRequest: 1 });
const queue = new Queue<WorkItem>(env('QUEUE'), { connection, prefix: env('REDIS_PREFIX') });

/** Creates arriving while a batch is in flight leave together in the next one, as the service's do. */
let pending: { item: WorkItem; done: (error?: unknown) => void }[] = [];
let flushing = false;
async function flush(): Promise<void> {
  while (pending.length > 0) {
    const batch = pending.splice(0, 1000);
    try {
      await db.query(`INSERT INTO bench_minimal_jobs (run, id, url) SELECT $1, unnest($2::text[]), unnest($3::text[])`, [
        run,
        batch.map((b) => b.item.id),
        batch.map((b) => b.item.url),
      ]);
      await queue.addBulk(batch.map((b) => ({ name: 'call', data: b.item, opts: { jobId: b.item.id, removeOnComplete: true, removeOnFail: true } })));
      for (const b of batch) b.done();
    } catch (error) {
      for (const b of batch) b.done(error);
    }
  }
  flushing = false;
}
function create(item: WorkItem): Promise<void> {
  return new Promise((resolve, reject) => {
    pending.push({ item, done: (error) => (error ? reject(error) : resolve()) });
    if (!flushing) {
      flushing = true;
      setImmediate(() => void flush());
    }
  });
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const answer = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method === 'POST' && req.url === '/v1/jobs') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { url: string } };
      const item = { id: `exe_${randomUUID()}`, url: body.request.url };
      create(item).then(
        () => answer(201, { id: item.id }),
        (error: Error) => answer(500, { error: { code: 'internal_error', message: error.message } }),
      );
      return;
    }
    if (req.method === 'GET' && req.url?.startsWith('/v1/executions')) {
      db.query<{ n: number }>(`SELECT count(*)::int AS n FROM bench_results WHERE run = $1 AND status = 200`, [run]).then(
        ({ rows }) => answer(200, { data: [], total: rows[0].n, limit: 1, offset: 0 }),
        (error: Error) => answer(500, { error: { code: 'internal_error', message: error.message } }),
      );
      return;
    }
    answer(404, { error: { code: 'not_found', message: 'no route' } });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`));

onStop(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await queue.close();
  connection.disconnect();
  await db.end();
});
