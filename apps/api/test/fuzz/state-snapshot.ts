import type { Runtime } from '@cronsvc/core';

/**
 * What a request could change: each table of the database and the count of each queue's jobs in
 * each state. A table is its row count and the sum of its rows' `xmin` (the transaction that
 * wrote each row version): any committed insert, update or delete moves one or the other, even an
 * update that writes the same values, and reading it costs no more than counting, where hashing
 * the rows' text took most of a long run. The test file has a database of its own, so this is
 * every workspace's state; tables are read from the catalog, so a new table is covered.
 */
export type StateSnapshot = Record<string, string>;

// Counts of requests per minute: every request, answered or refused, is meant to move them.
const NOT_STATE = ['rate_limit_windows'];

export async function tablesOf(runtime: Runtime): Promise<string[]> {
  const { rows } = await runtime.pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name).filter((t) => !NOT_STATE.includes(t));
}

// A token's last_used_at is refreshed by a request with it, answered or refused (at most once a
// minute): its other columns are its state.
const DIGEST_OF: Record<string, string> = {
  api_tokens: `coalesce(md5(string_agg(id || scope || coalesce(name, '') || coalesce(expires_at::text, ''), ',' ORDER BY id)), '0')`,
};

export async function snapshotState(runtime: Runtime, tables: string[]): Promise<StateSnapshot> {
  const digests = tables
    .map((t) => `SELECT '${t}' AS name, count(*) || ' rows ' || ${DIGEST_OF[t] ?? 'coalesce(sum(xmin::text::bigint), 0)'} AS digest FROM "${t}"`)
    .join(' UNION ALL ');
  const [{ rows }, queues] = await Promise.all([
    runtime.pool.query<{ name: string; digest: string }>(digests),
    Promise.all(runtime.queues.dashboardQueues().map(async (q) => [`queue ${q.name}`, JSON.stringify(await q.getJobCounts())] as const)),
  ]);
  return Object.fromEntries([...rows.map((r) => [r.name, r.digest] as const), ...queues]);
}

/** What differs between two snapshots, one line per table or queue, empty when nothing does. */
export function changesBetween(before: StateSnapshot, after: StateSnapshot): string[] {
  const counted = (digest: string | undefined) => digest?.replace(/ rows [0-9a-f]*$/, ' rows') ?? 'nothing';
  return Object.keys({ ...before, ...after })
    .filter((name) => before[name] !== after[name])
    .map((name) => {
      if (name.startsWith('queue ')) return `${name}: ${before[name]} -> ${after[name]}`;
      const [was, is] = [counted(before[name]), counted(after[name])];
      return `${name}: ${was} -> ${is}${was === is ? ', changed' : ''}`;
    });
}
