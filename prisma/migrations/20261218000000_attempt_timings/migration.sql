-- Per-phase timings of each attempt (docs/EXECUTIONS.md, "Timings"); null for attempts recorded before.
ALTER TABLE "attempts" ADD COLUMN "timings" JSONB;
ALTER TABLE "step_attempts" ADD COLUMN "timings" JSONB;
