// What the ceiling and the peer workers share: the service's own HTTP client making the same
// request the executor makes (GET to the target with the execution id header), and the result row.
import { createHttpClient, type HttpClient } from '@cronsvc/core';
import pg from 'pg';

export interface WorkItem {
  id: string;
  url: string;
}

export interface ResultRow {
  id: string;
  status: number;
  finishedAt: Date;
}

export const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

export function benchHttpClient(): HttpClient {
  return createHttpClient({ allowPrivateTargets: true });
}

/** The call, as the executor makes it; the status code, 0 for a transport error. */
export async function call(http: HttpClient, item: WorkItem): Promise<number> {
  const result = await http.send({
    url: item.url,
    workspaceId: 'bench',
    method: 'GET',
    headers: { 'X-Cron-Service-Execution-Id': item.id },
    body: null,
    timeoutMs: 30_000,
  });
  return result.kind === 'response' ? result.statusCode : 0;
}

/** One INSERT of many result rows. */
export async function insertResults(db: pg.Pool | pg.PoolClient, run: string, rows: readonly ResultRow[]): Promise<void> {
  await db.query(
    `INSERT INTO bench_results (run, id, status, finished_at)
     SELECT $1, unnest($2::text[]), unnest($3::int[]), unnest($4::timestamptz[])`,
    [run, rows.map((r) => r.id), rows.map((r) => r.status), rows.map((r) => r.finishedAt)],
  );
}

/**
 * Group commit: results that arrive while an INSERT is in flight go together in the next one.
 * add() resolves once its row is committed, so a queue job is acknowledged only after its result
 * is durable, as the service does.
 */
export class BatchRecorder {
  private pending: { row: ResultRow; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing = false;
  batches = 0;

  constructor(
    private readonly db: pg.Pool,
    private readonly run: string,
    private readonly maxBatch = 1000,
  ) {}

  add(row: Omit<ResultRow, 'finishedAt'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row: { ...row, finishedAt: new Date() }, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      // The time the batch is written, the same moment the executor stamps finished_at.
      const at = new Date();
      try {
        await insertResults(
          this.db,
          this.run,
          batch.map((b) => ({ ...b.row, finishedAt: at })),
        );
        this.batches++;
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = false;
  }
}

/** Closes on SIGTERM/SIGINT, then exits. */
export function onStop(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) process.exit(130);
    stopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    setTimeout(() => process.exit(1), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
