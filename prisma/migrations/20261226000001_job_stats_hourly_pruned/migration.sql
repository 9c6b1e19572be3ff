-- The statistics rollup keeps 91 days of hours (docs/EXECUTIONS.md, "Statistics"): the scheduler's
-- retention pass deletes older rows in batches, found by this index rather than by reading them all.
CREATE INDEX "job_stats_hourly_hour_idx" ON "job_stats_hourly"("hour");
