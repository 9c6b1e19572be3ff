-- Jobs as code (docs/JOBS-AS-CODE.md): a job's `key` names it in an apply document, unique in its
-- workspace when set; `tags` group jobs for filters and pause/resume by tag, kept sorted and
-- without repeats, as a JSON array so that the containment operator and its GIN index answer a
-- filter on several tags at once.
ALTER TABLE "jobs" ADD COLUMN "key" TEXT;
ALTER TABLE "jobs" ADD COLUMN "tags" JSONB NOT NULL DEFAULT '[]';
CREATE UNIQUE INDEX "jobs_workspace_id_key_key" ON "jobs"("workspace_id", "key");
CREATE INDEX "jobs_tags_idx" ON "jobs" USING GIN ("tags" jsonb_path_ops);
