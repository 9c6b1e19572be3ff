-- MAX_JOBS_PER_WORKSPACE, enforced by the statement that inserts jobs, with no query of its own:
-- job_counts holds each workspace's number of jobs, kept by statement-level triggers as
-- execution_counts is (one upsert per workspace per statement, in key order). The limit is a
-- setting of the service's connections (cronsvc.max_jobs_per_workspace, set when they open);
-- connections without it (migrations, tools) are not limited.

-- CreateTable
CREATE TABLE "job_counts" (
    "workspace_id" TEXT NOT NULL,
    "n" BIGINT NOT NULL,

    CONSTRAINT "job_counts_pkey" PRIMARY KEY ("workspace_id")
);

CREATE FUNCTION "job_quota"() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT NULLIF(current_setting('cronsvc.max_jobs_per_workspace', true), '')::bigint
$$;

-- A new job of a workspace already at its quota is skipped: it returns no row, and the batch it
-- came in is stored without it.
CREATE FUNCTION "jobs_within_quota"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quota bigint := job_quota();
BEGIN
  IF quota IS NOT NULL AND EXISTS (SELECT 1 FROM job_counts WHERE workspace_id = NEW.workspace_id AND n >= quota) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "jobs_within_quota" BEFORE INSERT ON "jobs" FOR EACH ROW EXECUTE FUNCTION "jobs_within_quota"();

-- Counts what each statement inserted or deleted. The upsert locks the workspace's counter row
-- until the transaction ends and reads its latest value, so inserts of one workspace take turns
-- here: a statement that took the count past the quota (several new jobs in one batch, or
-- concurrent statements that each saw room) fails whole with SQLSTATE CQ001, and the service
-- stores its jobs one at a time instead.
CREATE FUNCTION "job_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  quota bigint := job_quota();
  over text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH bumped AS (
      INSERT INTO job_counts AS c (workspace_id, n)
      SELECT workspace_id, count(*) FROM new_rows GROUP BY 1 ORDER BY 1
      ON CONFLICT (workspace_id) DO UPDATE SET n = c.n + EXCLUDED.n
      RETURNING c.workspace_id, c.n
    )
    SELECT workspace_id INTO over FROM bumped WHERE quota IS NOT NULL AND n > quota LIMIT 1;
    IF over IS NOT NULL THEN
      RAISE EXCEPTION 'workspace % is over its quota of % jobs', over, quota USING ERRCODE = 'CQ001';
    END IF;
  ELSE
    INSERT INTO job_counts AS c (workspace_id, n)
    SELECT workspace_id, -count(*) FROM old_rows GROUP BY 1 ORDER BY 1
    ON CONFLICT (workspace_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "job_counts_insert" AFTER INSERT ON "jobs"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "job_counts_apply"();
CREATE TRIGGER "job_counts_delete" AFTER DELETE ON "jobs"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "job_counts_apply"();

-- Backfill what exists already.
INSERT INTO "job_counts" ("workspace_id", "n")
SELECT workspace_id, count(*) FROM "jobs" GROUP BY 1;
