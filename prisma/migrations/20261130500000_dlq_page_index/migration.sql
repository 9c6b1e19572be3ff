-- A page of a workspace's dead-letter queue (GET /v1/dlq, newest scheduled_for first) read from
-- an index of its dead-lettered executions in that order: without it, a DLQ of a few thousand
-- items was read whole and sorted for every page.
CREATE INDEX "executions_dlq_page_idx" ON "executions"("workspace_id", "scheduled_for", "id") WHERE dead_lettered_at IS NOT NULL;
