-- The X-Request-Id of the API request that created an execution (null for schedule fires), so
-- the executor's log lines about it, and the warning when it fails, lead back to that request.
ALTER TABLE "executions" ADD COLUMN "request_id" TEXT;

-- The DLQ size and its oldest entry, read at every metrics scrape, from a small index of the
-- dead-lettered executions alone rather than a scan of every execution.
CREATE INDEX "executions_dead_lettered_idx" ON "executions"("dead_lettered_at") WHERE dead_lettered_at IS NOT NULL;
