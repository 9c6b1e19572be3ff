-- The claim changed status, which (status, next_attempt_at) indexed, so every claim rewrote every
-- index of the row (job_name's trigram index included), and a claim planned while few executions
-- were queued scanned every queued one through that index. The reconciler's index and the
-- concurrency cap's now leave status out and hold only unfinished executions, and the claim touches
-- no indexed column, so it is a HOT update whenever its page has room.
DROP INDEX "executions_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "executions_unfinished_idx" ON "executions"("next_attempt_at", "id") WHERE finished_at IS NULL;

-- CreateIndex
CREATE INDEX "executions_unfinished_by_job_idx" ON "executions"("job_id", "next_attempt_at") WHERE finished_at IS NULL;
