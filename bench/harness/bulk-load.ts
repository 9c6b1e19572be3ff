// A bulk load the way one is done by hand: the tables' indexes and keys (and the foreign keys
// pointing at them) are dropped, the rows inserted, and everything rebuilt from the definitions
// Postgres itself gives for them (pg_get_constraintdef, pg_get_indexdef), so the schema after is
// the migrations' own. Inserting ten million executions with eleven indexes maintained row by
// row, and a foreign-key check per row, takes several times longer than building them once.
// Partial indexes stay: the service's own scans of unfinished executions need them meanwhile (a
// reconciler scanning ten million rows every 5 s would slow the load more than anything), and a
// finished history adds nothing to them. The price: indexes built in one pass are packed tighter
// than ones grown by inserts.
import type pg from 'pg';

interface Saved {
  table: string;
  name: string;
  /** pg_get_constraintdef for constraints, pg_get_indexdef for plain indexes. */
  def: string;
}

export interface RebuildReport {
  rebuildMs: number;
  /** What was dropped and rebuilt, by name. */
  rebuilt: string[];
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Runs `work` with the indexes and keys of `tables` dropped; rebuilds them afterwards, also when `work` fails. */
export async function withIndexesRebuiltAfter(pool: pg.Pool, tables: readonly string[], work: () => Promise<void>): Promise<RebuildReport> {
  const { rows: constraints } = await pool.query<Saved & { type: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS def, c.contype AS type
       FROM pg_constraint c
      WHERE c.contype IN ('p', 'u', 'f')
        AND (c.conrelid = ANY($1::regclass[]) OR (c.contype = 'f' AND c.confrelid = ANY($1::regclass[])))
      ORDER BY c.conname`,
    [tables],
  );
  const { rows: indexes } = await pool.query<Saved>(
    `SELECT x.indrelid::regclass::text AS table, i.relname AS name, pg_get_indexdef(x.indexrelid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = ANY($1::regclass[]) AND x.indpred IS NULL AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
      ORDER BY i.relname`,
    [tables],
  );
  const foreign = constraints.filter((c) => c.type === 'f');
  const keys = constraints.filter((c) => c.type !== 'f');
  for (const c of foreign) await pool.query(`ALTER TABLE ${c.table} DROP CONSTRAINT ${ident(c.name)}`);
  for (const i of indexes) await pool.query(`DROP INDEX ${ident(i.name)}`);
  for (const c of keys) await pool.query(`ALTER TABLE ${c.table} DROP CONSTRAINT ${ident(c.name)}`);
  let started = 0;
  try {
    await work();
  } finally {
    started = Date.now();
    const client = await pool.connect();
    try {
      // Sorting ten million keys in the default 64 MB spills to disk many times over.
      await client.query(`SET maintenance_work_mem = '256MB'`);
      for (const c of keys) await client.query(`ALTER TABLE ${c.table} ADD CONSTRAINT ${ident(c.name)} ${c.def}`);
      for (const i of indexes) await client.query(i.def);
      for (const c of foreign) await client.query(`ALTER TABLE ${c.table} ADD CONSTRAINT ${ident(c.name)} ${c.def}`);
    } finally {
      await client.query('RESET maintenance_work_mem').catch(() => undefined);
      client.release();
    }
  }
  return { rebuildMs: Date.now() - started, rebuilt: [...keys, ...indexes, ...foreign].map((x) => x.name) };
}
