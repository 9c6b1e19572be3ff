-- Bounded pages and storage (docs/adr/024-bounded-pages-and-stored-bytes.md).
--
-- MAX_STORED_BYTES_PER_WORKSPACE bounds what a workspace stores of its own choosing: job
-- definitions, secrets and trigger inputs. Each such row carries its size (stored_bytes, set by
-- the service when it writes the row: the UTF-8 bytes of the values' JSON text), and
-- stored_bytes_totals holds each workspace's sum, kept by triggers as job_counts is (one upsert per
-- workspace per statement, in key order), so a check costs no SUM. The limit is a setting of the
-- service's connections (cronsvc.max_stored_bytes_per_workspace, set when they open); connections
-- without it (migrations, tools) are not limited. A statement that takes a workspace over the
-- limit while growing what it stores fails whole with SQLSTATE CQ002; one that shrinks it, or a
-- delete, never fails. Batched writers skip the rows that would not fit beforehand
-- (within_stored_bytes), so one workspace over its limit does not fail a batch of others.
--
-- jobs.summary is what a list item shows of the request or the steps (docs/API.md, "Lists"), so
-- that a page of jobs reads no request body: those are stored out of line (TOAST) once large, and
-- a page that does not select them never reads them.

ALTER TABLE "jobs" ADD COLUMN "stored_bytes" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "jobs" ADD COLUMN "summary" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "secrets" ADD COLUMN "stored_bytes" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "executions" ADD COLUMN "stored_bytes" INTEGER NOT NULL DEFAULT 0;

-- Rows written before: measured by Postgres's own JSON text of them (a few bytes more per value
-- than the service's, which leaves out the spaces).
UPDATE "jobs" SET
  stored_bytes = octet_length(name) + coalesce(octet_length(schedule::text), 0) + coalesce(octet_length(request::text), 0)
    + coalesce(octet_length(steps::text), 0) + octet_length(retry_policy::text) + coalesce(octet_length(on_success_url), 0)
    + coalesce(octet_length(on_failure_url), 0) + coalesce(octet_length(idempotency_key), 0),
  summary = jsonb_strip_nulls(jsonb_build_object(
    'request', CASE WHEN request IS NULL THEN NULL
                    ELSE jsonb_build_object('url', request->'url', 'method', request->'method', 'timeout_seconds', request->'timeout_seconds') END,
    'steps', (SELECT jsonb_agg(jsonb_build_object('id', s->'id', 'type', s->'type', 'url', s->'url', 'method', s->'method') ORDER BY i)
                FROM jsonb_array_elements(CASE WHEN jsonb_typeof(steps) = 'array' THEN steps ELSE '[]' END) WITH ORDINALITY AS e(s, i))));
UPDATE "secrets" SET stored_bytes = octet_length(value);
UPDATE "executions" SET stored_bytes = octet_length(trigger_input::text) WHERE trigger_input IS NOT NULL;

-- CreateTable
CREATE TABLE "stored_bytes_totals" (
    "workspace_id" TEXT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "stored_bytes_totals_pkey" PRIMARY KEY ("workspace_id")
);

INSERT INTO "stored_bytes_totals" ("workspace_id", "n")
SELECT workspace_id, sum(stored_bytes) FROM (
  SELECT workspace_id, stored_bytes FROM jobs WHERE stored_bytes > 0
  UNION ALL SELECT workspace_id, stored_bytes FROM secrets WHERE stored_bytes > 0
  UNION ALL SELECT workspace_id, stored_bytes FROM executions WHERE stored_bytes > 0
) AS sizes GROUP BY 1;

CREATE FUNCTION "stored_bytes_limit"() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT NULLIF(current_setting('cronsvc.max_stored_bytes_per_workspace', true), '')::bigint
$$;

-- Whether `bytes` more fit in the workspace's limit as its total stands (read without a lock: the
-- triggers below decide, this only spares a batch a failure).
CREATE FUNCTION "within_stored_bytes"(workspace text, bytes bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT bytes <= 0 OR stored_bytes_limit() IS NULL
      OR coalesce((SELECT n FROM stored_bytes_totals WHERE workspace_id = workspace), 0) + bytes <= stored_bytes_limit()
$$;

-- Inserts and deletes of jobs, secrets and executions: one upsert per workspace whose rows carry
-- bytes, in key order. The upsert locks the workspace's total until the transaction ends and reads
-- its latest value, so concurrent statements of one workspace take turns here and cannot overshoot.
CREATE FUNCTION "stored_bytes_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quota bigint := stored_bytes_limit();
  over text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH bumped AS (
      INSERT INTO stored_bytes_totals AS t (workspace_id, n)
      SELECT workspace_id, sum(stored_bytes) FROM new_rows WHERE stored_bytes > 0 GROUP BY 1 ORDER BY 1
      ON CONFLICT (workspace_id) DO UPDATE SET n = t.n + EXCLUDED.n
      RETURNING t.workspace_id, t.n
    )
    SELECT workspace_id INTO over FROM bumped WHERE quota IS NOT NULL AND n > quota LIMIT 1;
    IF over IS NOT NULL THEN
      RAISE EXCEPTION 'workspace % is over its limit of % stored bytes', over, quota USING ERRCODE = 'CQ002';
    END IF;
  ELSE
    INSERT INTO stored_bytes_totals AS t (workspace_id, n)
    SELECT workspace_id, -sum(stored_bytes) FROM old_rows WHERE stored_bytes > 0 GROUP BY 1 ORDER BY 1
    ON CONFLICT (workspace_id) DO UPDATE SET n = t.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

-- A row whose size changes (a PATCH of a job, a secret's new value): row by row, since such
-- updates change one row. Updates that leave the size alone (the scheduler's, the executor's) do
-- not call it: the WHEN clause is checked without a function call.
CREATE FUNCTION "stored_bytes_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quota bigint := stored_bytes_limit();
  total bigint;
BEGIN
  INSERT INTO stored_bytes_totals AS t (workspace_id, n) VALUES (NEW.workspace_id, NEW.stored_bytes - OLD.stored_bytes)
  ON CONFLICT (workspace_id) DO UPDATE SET n = t.n + EXCLUDED.n
  RETURNING t.n INTO total;
  IF quota IS NOT NULL AND NEW.stored_bytes > OLD.stored_bytes AND total > quota THEN
    RAISE EXCEPTION 'workspace % is over its limit of % stored bytes', NEW.workspace_id, quota USING ERRCODE = 'CQ002';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "jobs_stored_bytes_insert" AFTER INSERT ON "jobs"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
CREATE TRIGGER "jobs_stored_bytes_delete" AFTER DELETE ON "jobs"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
CREATE TRIGGER "jobs_stored_bytes_update" AFTER UPDATE ON "jobs"
  FOR EACH ROW WHEN (OLD.stored_bytes IS DISTINCT FROM NEW.stored_bytes) EXECUTE FUNCTION "stored_bytes_change"();

CREATE TRIGGER "secrets_stored_bytes_insert" AFTER INSERT ON "secrets"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
CREATE TRIGGER "secrets_stored_bytes_delete" AFTER DELETE ON "secrets"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
CREATE TRIGGER "secrets_stored_bytes_update" AFTER UPDATE ON "secrets"
  FOR EACH ROW WHEN (OLD.stored_bytes IS DISTINCT FROM NEW.stored_bytes) EXECUTE FUNCTION "stored_bytes_change"();

-- An execution's stored_bytes (its trigger_input) is set when it is inserted and never changes.
CREATE TRIGGER "executions_stored_bytes_insert" AFTER INSERT ON "executions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
CREATE TRIGGER "executions_stored_bytes_delete" AFTER DELETE ON "executions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stored_bytes_apply"();
