-- Every statement that changed executions upserted one counter row per (workspace, status) and
-- held its lock until its transaction committed, so the executor's claims and recordings and the
-- API's inserts of one workspace waited for each other on those few rows (measured: 3.4 ms per
-- statement in the counter upsert alone, nearly all of it waiting). Each key now has 16 shards;
-- a statement writes to the shard of its connection (backend pid % 16), so statements on
-- different connections rarely meet. Readers add the shards up. Keys are still upserted in one
-- order (workspace, status, then the statement's one shard), so no deadlock is possible.

ALTER TABLE "execution_counts" ADD COLUMN "shard" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "execution_counts" DROP CONSTRAINT "execution_counts_pkey";
ALTER TABLE "execution_counts" ADD CONSTRAINT "execution_counts_pkey" PRIMARY KEY ("workspace_id", "status", "shard");

CREATE OR REPLACE FUNCTION "execution_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  slot integer := pg_backend_pid() % 16;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO execution_counts AS c (workspace_id, status, shard, n)
    SELECT workspace_id, status, slot, count(*) FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO execution_counts AS c (workspace_id, status, shard, n)
    SELECT workspace_id, status, slot, -count(*) FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO execution_counts AS c (workspace_id, status, shard, n)
    SELECT workspace_id, status, slot, sum(delta)
      FROM (SELECT workspace_id, status, -1 AS delta FROM old_rows
            UNION ALL
            SELECT workspace_id, status, 1 FROM new_rows) AS changes
     GROUP BY 1, 2 HAVING sum(delta) <> 0 ORDER BY 1, 2
    ON CONFLICT (workspace_id, status, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;
