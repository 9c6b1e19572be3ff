// What the fire ledger costs in storage (docs/adr/021-fire-ledger.md): the bytes its two columns
// add to an execution row, empty (an ordinary fire) and set (a jittered slot or a catch-up),
// measured on copies of stored executions; and the bytes of a slot without an execution (a row of
// fire_gaps with its indexes), measured on seeded rows that are removed afterwards.
import type pg from 'pg';

const SAMPLE = 100_000;

export interface LedgerBytes {
  sampled: number;
  /** Average stored tuple of an execution row without the ledger columns, with them null, and with them set. */
  withoutColumns: number;
  columnsNull: number;
  columnsSet: number;
  /** The same as heap bytes per row (pages included), which moves in steps as rows per page change. */
  heapPerRow: { withoutColumns: number; columnsNull: number; columnsSet: number };
  gaps: number;
  /** fire_gaps bytes per row, indexes included. */
  gapBytes: number;
}

async function heapPerRow(client: pg.PoolClient, table: string, rows: number): Promise<number> {
  const r = await client.query<{ bytes: string }>(`SELECT pg_relation_size($1::regclass)::text AS bytes`, [table]);
  return rows ? Number(r.rows[0].bytes) / rows : 0;
}

async function averageTuple(client: pg.PoolClient, table: string): Promise<number> {
  const r = await client.query<{ bytes: number | null }>(`SELECT avg(pg_column_size(t.*))::float8 AS bytes FROM ${table} AS t`);
  return r.rows[0].bytes ?? 0;
}

/** The execution columns' cost on up to 100,000 stored executions, and a fire_gaps row's on `gaps` seeded rows. */
export async function ledgerBytes(pool: pg.Pool, workspaceId: string, gaps: number): Promise<LedgerBytes> {
  const client = await pool.connect();
  try {
    const copy = (name: string) => client.query(`CREATE TEMP TABLE ${name} AS SELECT * FROM executions ORDER BY id LIMIT ${SAMPLE}`);
    await copy('ledger_without');
    await copy('ledger_null');
    await copy('ledger_set');
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_null');
    const sampled = rows[0].n;
    // A dropped column stays null in every row: what the row weighed before the columns existed.
    await client.query('ALTER TABLE ledger_without DROP COLUMN jitter_ms, DROP COLUMN caught_up');
    await client.query('UPDATE ledger_set SET jitter_ms = 1234567, caught_up = true');
    await client.query('VACUUM FULL ledger_without');
    await client.query('VACUUM FULL ledger_set');
    const result = {
      sampled,
      withoutColumns: await averageTuple(client, 'ledger_without'),
      columnsNull: await averageTuple(client, 'ledger_null'),
      columnsSet: await averageTuple(client, 'ledger_set'),
      heapPerRow: {
        withoutColumns: await heapPerRow(client, 'ledger_without', sampled),
        columnsNull: await heapPerRow(client, 'ledger_null', sampled),
        columnsSet: await heapPerRow(client, 'ledger_set', sampled),
      },
    };
    await client.query('DROP TABLE ledger_without, ledger_null, ledger_set');

    // Missed slots with ids as long as the service's, spread over up to 100 of the workspace's jobs.
    const jobs = (await client.query<{ id: string }>('SELECT id FROM jobs WHERE workspace_id = $1 ORDER BY id LIMIT 100', [workspaceId])).rows.map((r) => r.id);
    await client.query(
      `INSERT INTO fire_gaps (job_id, workspace_id, scheduled_for, due_at, outcome, reason, execution_id, created_at)
       SELECT ($3::text[])[1 + i % cardinality($3::text[])], $1, now() - i * interval '1 minute', now() - i * interval '1 minute', 'missed', NULL,
              'exe_' || substr(md5((i / 10)::text), 1, 22), now()
         FROM generate_series(1, $2::int) AS i
       ON CONFLICT DO NOTHING`,
      [workspaceId, jobs.length > 0 ? gaps : 0, jobs],
    );
    await client.query('VACUUM ANALYZE fire_gaps');
    const g = await client.query<{ bytes: string; n: number }>(`SELECT pg_total_relation_size('fire_gaps')::text AS bytes, (SELECT count(*)::int FROM fire_gaps) AS n`);
    await client.query('TRUNCATE fire_gaps');
    return { ...result, gaps: g.rows[0].n, gapBytes: g.rows[0].n ? Number(g.rows[0].bytes) / g.rows[0].n : 0 };
  } finally {
    client.release();
  }
}
