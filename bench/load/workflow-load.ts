// The workflows scenario's load, in its own process so it does not share an event loop with the
// harness or the service. LOAD_MODE=resume: waits until RESUME_COUNT runs wait at a
// wait_for_webhook step, then POSTs each one's resume URL once (64 in flight), as the systems that
// call back would, noting when each resume was sent; prints "RESUMES <json>". LOAD_MODE=triggers: posts
// TRIGGER_COUNT triggers over TRIGGER_CONNECTIONS keep-alive connections, all queued at once,
// with autocannon; prints "TRIGGERS <json>".
import autocannon from 'autocannon';
import pg from 'pg';
import { loadResultOf, type LoadResult } from '../lib/load.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

// Resumes in flight at once: a burst of callbacks from many senders, bounded like a real sender pool.
const RESUMES_IN_FLIGHT = 64;

export interface ResumeRecord {
  executionId: string;
  sentAt: number;
  /** When the answer to the resume was in. */
  answeredAt: number;
  status: number;
}

async function resumeAll(): Promise<ResumeRecord[]> {
  const serviceUrl = env('SERVICE_URL');
  const expected = Number(env('RESUME_COUNT'));
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 2 });
  const records: ResumeRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = (executionId: string, resumeUrl: string) => {
    const sentAt = Date.now();
    // The URL carries PUBLIC_BASE_URL's origin; the path is sent to the service as it runs here.
    const call = fetch(`${serviceUrl}${new URL(resumeUrl).pathname}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' })
      .then(async (res) => {
        await res.arrayBuffer();
        records.push({ executionId, sentAt, answeredAt: Date.now(), status: res.status });
      })
      .catch(() => void records.push({ executionId, sentAt, answeredAt: Date.now(), status: 0 }))
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  };
  try {
    // Resumes start once every run waits, so they measure the resume path, not a queue of first steps.
    let waiting: { id: string; url: string }[] = [];
    while (waiting.length < expected) {
      await new Promise((r) => setTimeout(r, 50));
      waiting = (await pool.query<{ id: string; url: string }>(
        `SELECT id, waiting_payload->>'resume_url' AS url FROM executions WHERE status = 'waiting' AND waiting_reason = 'webhook'`,
      )).rows;
    }
    for (const row of waiting) {
      while (inFlight.size >= RESUMES_IN_FLIGHT) await Promise.race(inFlight);
      send(row.id, row.url);
    }
    await Promise.all(inFlight);
    return records;
  } finally {
    await pool.end();
  }
}

async function postTriggers(): Promise<LoadResult> {
  const r = await autocannon({
    url: `${env('SERVICE_URL')}/v1/triggers/${env('TRIGGER_TOKEN')}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-secret': env('TRIGGER_SECRET') },
    body: JSON.stringify({ event: 'order.created', order: { id: 'o-1', total: 42 } }),
    connections: Number(env('TRIGGER_CONNECTIONS')),
    amount: Number(env('TRIGGER_COUNT')),
    timeout: 30,
  });
  return loadResultOf(r);
}

if (process.env.LOAD_MODE === 'resume') process.stdout.write(`RESUMES ${JSON.stringify(await resumeAll())}\n`);
else if (process.env.LOAD_MODE === 'triggers') process.stdout.write(`TRIGGERS ${JSON.stringify(await postTriggers())}\n`);
else throw new Error('LOAD_MODE must be resume or triggers');
