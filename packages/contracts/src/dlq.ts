/** GET /v1/dlq/stats: total always equals the sum of by_job and of by_error_class. */
export interface DlqStats {
  total: number;
  oldest_dead_lettered_at: string | null;
  by_job: { job_id: string; job_name: string; count: number }[];
  by_error_class: { [errorClass: string]: number };
}

export const REPLAY_BATCH_MAX = 100;

/** Body of POST /v1/dlq/replay-batch: up to 100 distinct ids, or every DLQ item of one job. */
export type ReplayBatchInput = { ids: string[] } | { job_id: string };

export interface ReplayBatchResult {
  replayed: { id: string; execution_id: string }[];
  failed: { id: string; error: string }[];
}

/** Body of POST /v1/dlq/purge: both optional; `before` is an ISO 8601 timestamp with a zone. */
export interface PurgeInput {
  job_id?: string;
  before?: string;
}

export interface PurgeResult {
  purged: number;
}
