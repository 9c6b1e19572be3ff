import pg from 'pg';
import { waitFor, type ReceivedRequest, type TargetServer } from '@cronsvc/core/testing';
import type { Burst } from './burst.js';

// What a dead or stalled process may and may not do to a burst's calls (docs/RELIABILITY.md):
// each job called, each call of a job under its one execution id (webhook-id), and a second call
// only where the dead process may have made the first.

/** The calls each path of the burst received, in order of arrival. */
export function callsOf(target: TargetServer, burst: Burst): Map<string, ReceivedRequest[]> {
  const calls = new Map<string, ReceivedRequest[]>(burst.paths.map((p) => [p, []]));
  for (const r of target.received) calls.get(r.url)?.push(r);
  return calls;
}

/** Lateness (ms after the due time) of each path's first call: when the fire was sent, not resent. */
export function firstCallLag(target: TargetServer, burst: Burst): { p50: number; p99: number; max: number } {
  const lags = [...callsOf(target, burst).values()]
    .filter((calls) => calls.length > 0)
    .map((calls) => calls[0].at - burst.dueAt)
    .sort((a, b) => a - b);
  const at = (q: number) => lags[Math.max(0, Math.ceil(q * lags.length) - 1)] ?? Infinity;
  return { p50: at(0.5), p99: at(0.99), max: lags[lags.length - 1] ?? Infinity };
}

/** Each job's execution ids by job name, read from the record. */
export async function executionIdsByJob(databaseUrl: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ job_name: string; ids: string[] }>('SELECT job_name, array_agg(id) AS ids FROM executions GROUP BY job_name');
    return new Map(rows.map((r) => [r.job_name, r.ids]));
  } finally {
    await client.end();
  }
}

/** How many executions of the burst have not ended yet. */
export async function unfinished(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM executions WHERE finished_at IS NULL');
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** How many deliveries are still to be sent (pending, or processing under a sender's lease). */
export async function pendingDeliveries(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status IN ('pending', 'processing')`);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** Waits until every path of the burst was called and every execution in the record has ended; `output` explains a timeout. */
export async function untilEveryCall(server: TargetServer, burst: Burst, databaseUrl: string, output: () => string): Promise<void> {
  const called = () => [...callsOf(server, burst).values()].filter((calls) => calls.length > 0).length;
  await waitFor(() => called() === burst.paths.length, {
    timeoutMs: 90_000,
    what: () => `every path to be called (${called()} of ${burst.paths.length}):\n${output().slice(-5_000)}`,
  });
  await waitFor(async () => (await unfinished(databaseUrl)) === 0, { timeoutMs: 30_000, what: 'every execution to end' });
}

export interface CallFaults {
  /** Paths never called. */
  lost: string[];
  /** Paths whose job has more than one execution, or called under an id that is not its execution's. */
  underTwoIds: string[];
  /** Paths called more than once although the first call arrived after `resendsBefore`: sent twice by live processes. */
  resentByTheLiving: string[];
  /** Paths called more than once (with the same id), all of them before `resendsBefore`. */
  resent: number;
}

/**
 * Judges a burst's calls against the record: `jobOf` names the job of a path, and a path may be
 * called twice only if its first call arrived before `resendsBefore` (the dead process may have
 * sent it), or, given a function, when it says the first call's time is one a fault may have
 * left unrecorded.
 */
export function judgeCalls(
  calls: Map<string, ReceivedRequest[]>,
  executions: Map<string, string[]>,
  jobOf: (path: string) => string,
  resendsBefore: number | ((firstCallAt: number) => boolean),
): CallFaults {
  const mayBeResent = typeof resendsBefore === 'number' ? (at: number) => at <= resendsBefore : resendsBefore;
  const faults: CallFaults = { lost: [], underTwoIds: [], resentByTheLiving: [], resent: 0 };
  for (const [path, received] of calls) {
    if (received.length === 0) {
      faults.lost.push(path);
      continue;
    }
    const ids = executions.get(jobOf(path)) ?? [];
    if (ids.length !== 1 || received.some((r) => r.headers['webhook-id'] !== ids[0])) faults.underTwoIds.push(path);
    if (received.length > 1) {
      if (!mayBeResent(received[0].at)) faults.resentByTheLiving.push(path);
      else faults.resent += 1;
    }
  }
  return faults;
}
