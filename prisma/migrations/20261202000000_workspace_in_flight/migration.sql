-- Fair share between workspaces (docs/adr/019-fair-share-between-workspaces.md): at most
-- WORKSPACE_MAX_IN_FLIGHT requests of one workspace in flight across all executors. An execution
-- is in flight while it is running under a lease (locked_until set, expired or not: until it is
-- taken over, recorded or released, it holds its place).

-- In-flight executions per workspace, kept by statement-level triggers as execution_counts is:
-- one upsert per workspace per statement, in key order, on the shard of the statement's
-- connection, so recordings of one workspace do not queue for one row. Readers add the shards up.
CREATE TABLE "in_flight_counts" (
    "workspace_id" TEXT NOT NULL,
    "shard" INTEGER NOT NULL DEFAULT 0,
    "n" BIGINT NOT NULL,

    CONSTRAINT "in_flight_counts_pkey" PRIMARY KEY ("workspace_id", "shard")
);

CREATE FUNCTION "in_flight_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  slot integer := pg_backend_pid() % 16;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO in_flight_counts AS c (workspace_id, shard, n)
    SELECT workspace_id, slot, count(*) FROM new_rows WHERE status = 'running' AND locked_until IS NOT NULL GROUP BY 1 ORDER BY 1
    ON CONFLICT (workspace_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO in_flight_counts AS c (workspace_id, shard, n)
    SELECT workspace_id, slot, -count(*) FROM old_rows WHERE status = 'running' AND locked_until IS NOT NULL GROUP BY 1 ORDER BY 1
    ON CONFLICT (workspace_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSE
    INSERT INTO in_flight_counts AS c (workspace_id, shard, n)
    SELECT workspace_id, slot, sum(delta)
      FROM (SELECT workspace_id, -1 AS delta FROM old_rows WHERE status = 'running' AND locked_until IS NOT NULL
            UNION ALL
            SELECT workspace_id, 1 FROM new_rows WHERE status = 'running' AND locked_until IS NOT NULL) AS changes
     GROUP BY 1 HAVING sum(delta) <> 0 ORDER BY 1
    ON CONFLICT (workspace_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "in_flight_counts_insert" AFTER INSERT ON "executions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "in_flight_counts_apply"();
CREATE TRIGGER "in_flight_counts_update" AFTER UPDATE ON "executions"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "in_flight_counts_apply"();
CREATE TRIGGER "in_flight_counts_delete" AFTER DELETE ON "executions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "in_flight_counts_apply"();

-- Called by the claim statement before it starts anything: takes a transaction-scoped advisory
-- lock for each workspace of these executions (class 1902, key hashtext(workspace id); in key
-- order, so that two batches cannot deadlock), then answers each workspace's in-flight count.
-- VOLATILE, so the count is read with a snapshot taken after the locks were granted: it includes
-- every claim committed by their previous holders. Claims of one workspace thus take turns to the
-- commit; recordings take no lock, and what they subtract meanwhile only makes the room look smaller.
CREATE FUNCTION "workspace_in_flight"(ids text[]) RETURNS TABLE (ws text, n bigint) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1902, k)
     FROM (SELECT DISTINCT hashtext(e.workspace_id) AS k FROM executions AS e WHERE e.id = ANY(ids) ORDER BY 1) AS keys;
  RETURN QUERY
    SELECT w.id, COALESCE((SELECT sum(c.n) FROM in_flight_counts AS c WHERE c.workspace_id = w.id), 0)::bigint
      FROM (SELECT DISTINCT e.workspace_id AS id FROM executions AS e WHERE e.id = ANY(ids)) AS w;
END $$;

-- Backfill what is in flight already.
INSERT INTO "in_flight_counts" ("workspace_id", "n")
SELECT workspace_id, count(*) FROM "executions" WHERE status = 'running' AND locked_until IS NOT NULL GROUP BY 1;
