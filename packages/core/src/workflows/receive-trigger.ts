import type { SqlPool } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import { perPool } from '../db/per-pool.js';
import { AppError } from '../errors/app-error.js';
import { enqueueCommitted } from '../executions/create-executions.js';
import { newId } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Deps } from '../runtime/deps.js';
import { hashToken } from '../workspaces/workspaces.js';
import { triggerInput } from './inbound-request.js';
import { webhookSecretMatches } from './webhook-credentials.js';

interface TriggerJob {
  id: string;
  workspace_id: string;
  name: string;
  state: string;
  webhook_token_hash: string;
  webhook_secret_hash: string | null;
}

interface NewRun {
  id: string;
  workspaceId: string;
  jobId: string;
  jobName: string;
  at: Date;
  triggerInput: string;
  requestId: string | null;
}

// Triggers arriving together share one lookup and one insert (one batcher per pool each), as
// the API's token lookups and job inserts do: a burst of thousands costs a few round trips.
const LOOKUP_SQL = `
  SELECT id, workspace_id, name, state, webhook_token_hash, webhook_secret_hash FROM jobs
   WHERE webhook_token_hash = ANY($1::text[]) AND kind = 'webhook_trigger'`;

// A job deleted since its lookup gets no execution (the join drops it) rather than a failed batch.
const INSERT_SQL = `
  INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, trigger_input, request_id, created_at, updated_at)
  SELECT t.id, t.workspace_id, t.job_id, t.job_name, 'queued', 'webhook', t.at, t.at, t.trigger_input, t.request_id, t.at, t.at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[], $7::text[]) AS t(id, workspace_id, job_id, job_name, at, trigger_input, request_id)
    JOIN jobs AS j ON j.id = t.job_id
  RETURNING id`;

const lookups = perPool(
  (pool: SqlPool) =>
    new GroupCommit<string, TriggerJob | null>(
      async (hashes) => {
        const { rows } = await pool.query<TriggerJob>({ name: 'trigger-jobs', text: LOOKUP_SQL, values: [hashes] });
        const byHash = new Map(rows.map((r) => [r.webhook_token_hash, r]));
        return hashes.map((h) => byHash.get(h) ?? null);
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

const inserts = perPool(
  (pool: SqlPool) =>
    new GroupCommit<NewRun, boolean>(
      async (runs) => {
        const values = [runs.map((r) => r.id), runs.map((r) => r.workspaceId), runs.map((r) => r.jobId), runs.map((r) => r.jobName), runs.map((r) => r.at.toISOString()), runs.map((r) => r.triggerInput), runs.map((r) => r.requestId)];
        const { rows } = await pool.query<{ id: string }>({ name: 'insert-triggered', text: INSERT_SQL, values });
        const stored = new Set(rows.map((r) => r.id));
        return runs.map((r) => stored.has(r.id));
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

export interface InboundTrigger {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  query: Record<string, unknown>;
  remoteAddress: string | undefined;
}

/**
 * POST /v1/triggers/:token (DECISIONS D7). A known token of an active webhook_trigger job starts
 * an execution (source `webhook`, `trigger_input` from the request) that waits its turn like any
 * other under max_concurrent_executions. Unknown tokens, and jobs that are paused or draft, are
 * answered the same way and start nothing; only a wrong X-Webhook-Secret is an error (401).
 * Returns the new execution's id, or null when none was started.
 */
export async function receiveTrigger(deps: Pick<Deps, 'pool' | 'clock' | 'queues' | 'logger' | 'config'>, token: string, inbound: InboundTrigger): Promise<string | null> {
  const job = await lookups(deps.pool).add(hashToken(token));
  if (!job) return null;
  if (job.webhook_secret_hash !== null) {
    const given = inbound.headers['x-webhook-secret'];
    if (!webhookSecretMatches(deps.config.secretsEncryptionKey, job.webhook_secret_hash, typeof given === 'string' ? given : undefined)) {
      throw new AppError('unauthorized', 'X-Webhook-Secret does not match the secret of this trigger');
    }
  }
  if (job.state !== 'active') {
    deps.logger.info('trigger ignored: the job is not active', { jobId: job.id, state: job.state });
    return null;
  }
  const at = deps.clock.now();
  const input = triggerInput({ headers: inbound.headers, body: inbound.body, query: inbound.query, remoteAddress: inbound.remoteAddress, receivedAt: at });
  const id = newId('exe');
  const stored = await inserts(deps.pool).add({ id, workspaceId: job.workspace_id, jobId: job.id, jobName: job.name, at, triggerInput: JSON.stringify(input), requestId: currentRequestId() ?? null });
  if (!stored) return null;
  await enqueueCommitted(deps, [{ executionId: id, attempt: 1, runAt: at }]);
  return id;
}
