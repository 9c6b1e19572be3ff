-- Fair share between workspaces (docs/adr/022-fair-share-between-workspaces.md): at most
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

-- The function's statements have no parameter, so they are planned once per connection rather than
-- at every call (the service's connections plan each statement for its values otherwise).
CREATE FUNCTION "in_flight_counts_apply"() RETURNS trigger LANGUAGE plpgsql SET plan_cache_mode = auto AS $$
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

-- Called by the claim statement before it starts anything, with the batch's executions and each
-- one's WORKSPACE_MAX_IN_FLIGHT (0: no limit). Of those that need room (due and not leased: queued
-- within their job's cap, or running between attempts), it takes a transaction-scoped advisory lock
-- for each workspace (class 1902, key hashtext(workspace id); in key order, so that two batches
-- cannot deadlock), then answers each one's room left if it starts: the limit, less the
-- workspace's count, less those ranked before it in the batch (soonest due first). VOLATILE, so
-- what it reads after the locks is read with a fresh snapshot, which includes every claim
-- committed by their previous holders: claims of one workspace take turns to the commit.
-- Recordings take no lock; what they subtract meanwhile only makes the room look smaller. Its
-- plans are kept per connection (plan_cache_mode auto): it runs at every claim.
CREATE FUNCTION "workspace_room"(ids text[], caps integer[], cap_checked boolean)
  RETURNS TABLE (id text, room_left bigint) LANGUAGE plpgsql VOLATILE SET plan_cache_mode = auto AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1902, keys.k)
     FROM (SELECT DISTINCT hashtext(e.workspace_id) AS k
             FROM unnest(ids, caps) AS v(id, cap) JOIN executions AS e ON e.id = v.id JOIN jobs AS j ON j.id = e.job_id
            WHERE v.cap > 0 AND e.next_attempt_at <= now()
              AND ((e.status = 'queued' AND (j.max_concurrent_executions = 0 OR cap_checked)) OR (e.status = 'running' AND e.locked_until IS NULL))
            ORDER BY 1) AS keys;
  RETURN QUERY
    SELECT w.id, (w.cap - COALESCE((SELECT sum(c.n) FROM in_flight_counts AS c WHERE c.workspace_id = w.workspace_id), 0)
                 - row_number() OVER (PARTITION BY w.workspace_id ORDER BY w.next_attempt_at, w.id))::bigint
      FROM (SELECT v.id, v.cap, e.workspace_id, e.next_attempt_at
              FROM unnest(ids, caps) AS v(id, cap) JOIN executions AS e ON e.id = v.id JOIN jobs AS j ON j.id = e.job_id
             WHERE v.cap > 0 AND e.next_attempt_at <= now()
               AND ((e.status = 'queued' AND (j.max_concurrent_executions = 0 OR cap_checked)) OR (e.status = 'running' AND e.locked_until IS NULL))) AS w;
END $$;

-- Backfill what is in flight already.
INSERT INTO "in_flight_counts" ("workspace_id", "n")
SELECT workspace_id, count(*) FROM "executions" WHERE status = 'running' AND locked_until IS NOT NULL GROUP BY 1;
