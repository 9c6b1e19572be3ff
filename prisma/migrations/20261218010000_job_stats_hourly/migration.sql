-- A job's statistics rollup (docs/EXECUTIONS.md, "Statistics"): executions that ended, per job,
-- UTC hour and duration class (durations in classes growing by 20%), written by the statement
-- that records each end. Executions that ended before it are not counted.
CREATE TABLE "job_stats_hourly" (
    "job_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "duration_class" INTEGER NOT NULL,
    "executions" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    CONSTRAINT "job_stats_hourly_pkey" PRIMARY KEY ("job_id", "hour", "duration_class"),
    CONSTRAINT "job_stats_hourly_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
