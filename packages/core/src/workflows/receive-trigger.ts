import type { SqlPool } from '../db/client.js';
import { columnArrays, unnestFrom, type Column } from '../db/columns.js';
import { GroupCommit } from '../db/group-commit.js';
import { keyedLookup } from '../db/keyed-lookup.js';
import { perPool } from '../db/per-pool.js';
import { AppError } from '../errors/app-error.js';
import { enqueueCommitted } from '../executions/create-executions.js';
import { newId } from '../ids/ids.js';
import { currentRequestId } from '../logging/log-context.js';
import type { Deps } from '../deps/deps.js';
import { hashToken } from '../ids/ids.js';
import { triggerInput } from './inbound-request.js';
import { isStoredBytesError, storedSize } from '../db/stored-bytes.js';
import { observeDroppedTriggerInput } from '../metrics/observe.js';
import { needsRehash, webhookSecretHash, webhookSecretMatches } from '../jobs/webhook-credentials.js';

/** A webhook_trigger job as a trigger call finds it by its token. */
export interface TriggerJob {
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
  triggerInput: unknown;
  storedBytes: number;
  requestId: string | null;
}

/** What became of a trigger call's run: stored, dropped for the workspace's stored bytes, or its job deleted meanwhile. */
type RunOutcome = 'stored' | 'over_limit' | 'job_gone';

const RUN_COLUMNS: readonly Column<NewRun>[] = [
  { name: 'id', type: 'text', value: (r) => r.id },
  { name: 'workspace_id', type: 'text', value: (r) => r.workspaceId },
  { name: 'job_id', type: 'text', value: (r) => r.jobId },
  { name: 'job_name', type: 'text', value: (r) => r.jobName },
  { name: 'at', type: 'timestamptz', value: (r) => r.at },
  { name: 'trigger_input', type: 'jsonb', value: (r) => r.triggerInput },
  { name: 'stored_bytes', type: 'int', value: (r) => r.storedBytes },
  { name: 'request_id', type: 'text', value: (r) => r.requestId },
];

// Triggers arriving together share one lookup and one insert (one batcher per pool each), as
// the API's token lookups and job inserts do: a burst of thousands costs a few round trips.
const LOOKUP_SQL = `
  SELECT id, workspace_id, name, state, webhook_token_hash, webhook_secret_hash FROM jobs
   WHERE webhook_token_hash = ANY($1::text[]) AND kind = 'webhook_trigger'`;

// A job deleted since its lookup gets no execution (the join drops it), and an input that would
// take its workspace past MAX_STORED_BYTES_PER_WORKSPACE is left out, rather than failing the
// batch for everyone; each run says which. The triggers on executions still fail a batch whose
// inputs of one workspace only together pass the limit: the batcher then stores them one by one.
const INSERT_SQL = `
  WITH t AS (
    SELECT * FROM ${unnestFrom(RUN_COLUMNS, 'r')}
  ), stored AS (
    INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, trigger_input, stored_bytes, request_id, created_at, updated_at)
    SELECT t.id, t.workspace_id, t.job_id, t.job_name, 'queued', 'webhook', t.at, t.at, t.trigger_input, t.stored_bytes, t.request_id, t.at, t.at
      FROM t JOIN jobs AS j ON j.id = t.job_id
     WHERE within_stored_bytes(t.workspace_id, t.stored_bytes)
    RETURNING id
  )
  SELECT t.id, EXISTS (SELECT 1 FROM stored WHERE stored.id = t.id) AS stored, within_stored_bytes(t.workspace_id, t.stored_bytes) AS room FROM t`;

const lookup = keyedLookup<TriggerJob>('trigger-jobs', LOOKUP_SQL, (job) => job.webhook_token_hash);

const inserts = perPool(
  (pool: SqlPool) =>
    new GroupCommit<NewRun, RunOutcome>(
      async (runs) => {
        const { rows } = await pool.query<{ id: string; stored: boolean; room: boolean }>({ name: 'insert-triggered', text: INSERT_SQL, values: columnArrays(RUN_COLUMNS, runs) });
        const byId = new Map(rows.map((r) => [r.id, r]));
        return runs.map((run): RunOutcome => {
          const row = byId.get(run.id);
          return row?.stored ? 'stored' : row?.room === false ? 'over_limit' : 'job_gone';
        });
      },
      { maxBatch: 500, maxInFlight: 2 },
    ),
);

/** Stores a run; its input over the workspace's stored bytes, found only when the statement's triggers count it, is dropped too. */
async function storeRun(pool: SqlPool, run: NewRun): Promise<RunOutcome> {
  try {
    return await inserts(pool).add(run);
  } catch (error) {
    if (isStoredBytesError(error)) return 'over_limit';
    throw error;
  }
}

export interface InboundTrigger {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  query: Record<string, unknown>;
  remoteAddress: string | undefined;
}

type TriggerDeps = Pick<Deps, 'pool' | 'clock' | 'queues' | 'logger' | 'config'>;

/**
 * POST /v1/triggers/:token (docs/WORKFLOWS.md, "Webhook triggers"), in the order the API takes it, so that
 * nothing is read or stored for a call that is refused: the job of the token (null for an unknown
 * token, which is answered like a known one and starts nothing), then its secret, then the run.
 */
export async function findTrigger(deps: Pick<Deps, 'pool'>, token: string): Promise<TriggerJob | null> {
  return lookup(deps.pool, hashToken(token));
}

// Rewrites a first-version secret hash once a call has shown the secret (only then is it known).
const REHASH_SQL = 'UPDATE jobs SET webhook_secret_hash = $3 WHERE id = $1 AND webhook_secret_hash = $2';

/** Only a wrong or missing X-Webhook-Secret is an error (401), checked before the body is read. */
export async function checkTriggerSecret(deps: Pick<Deps, 'pool' | 'config'>, job: TriggerJob, given: string | string[] | undefined): Promise<void> {
  if (job.webhook_secret_hash === null) return;
  const secret = typeof given === 'string' ? given : undefined;
  if (!webhookSecretMatches(deps.config.secretsEncryptionKey, job.webhook_secret_hash, secret)) {
    throw new AppError('unauthorized', 'X-Webhook-Secret does not match the secret of this trigger');
  }
  if (needsRehash(job.webhook_secret_hash)) {
    await deps.pool.query({ name: 'rehash-webhook-secret', text: REHASH_SQL, values: [job.id, job.webhook_secret_hash, webhookSecretHash(deps.config.secretsEncryptionKey, secret!)] });
  }
}

/**
 * A known token of an active webhook_trigger job starts an execution (source `webhook`,
 * `trigger_input` from the request) that waits its turn like any other under
 * max_concurrent_executions; a job that is paused or draft starts nothing, and neither does an
 * input that would take the workspace past MAX_STORED_BYTES_PER_WORKSPACE (counted in
 * cronsvc_trigger_inputs_dropped_total and logged; the caller is answered as for any trigger).
 * Returns the new execution's id, or null when none was started.
 */
export async function startTriggeredRun(deps: TriggerDeps, job: TriggerJob, inbound: InboundTrigger): Promise<string | null> {
  if (job.state !== 'active') {
    deps.logger.info('trigger ignored: the job is not active', { jobId: job.id, state: job.state });
    return null;
  }
  const at = deps.clock.now();
  const input = triggerInput({ headers: inbound.headers, body: inbound.body, query: inbound.query, remoteAddress: inbound.remoteAddress, receivedAt: at });
  const id = newId('exe');
  const run: NewRun = { id, workspaceId: job.workspace_id, jobId: job.id, jobName: job.name, at, triggerInput: input, storedBytes: storedSize(input), requestId: currentRequestId() ?? null };
  const outcome = await storeRun(deps.pool, run);
  if (outcome === 'over_limit') {
    observeDroppedTriggerInput('stored_bytes_limit');
    deps.logger.warn('trigger input dropped: the workspace is at MAX_STORED_BYTES_PER_WORKSPACE', { jobId: job.id, bytes: run.storedBytes });
  }
  if (outcome !== 'stored') return null;
  await enqueueCommitted(deps, [{ executionId: id, attempt: 1, runAt: at, workspaceId: job.workspace_id }]);
  return id;
}
