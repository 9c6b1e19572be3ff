-- Every job create writes a `job.created` event in its statement, and each B-tree on the audit
-- log is one more entry per create (docs/BENCHMARKS.md, "This wave's features, before and
-- after"). One B-tree now serves both readers of an event: the primary key (workspace_id,
-- created_at, id), read backwards, is the workspace's newest-first page; and, because events are
-- written in time order, a BRIN index on created_at (a few pages for the whole table) finds what
-- the hourly retention pass deletes. Nothing looks an event up by its id alone.
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_pkey";
DROP INDEX "audit_events_workspace_id_created_at_idx";
DROP INDEX "audit_events_created_at_idx";
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_pkey" PRIMARY KEY ("workspace_id", "created_at", "id");
CREATE INDEX "audit_events_created_at_idx" ON "audit_events" USING brin ("created_at");
