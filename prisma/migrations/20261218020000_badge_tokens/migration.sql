-- The secret part of each job's and monitor's public badge URL (docs/JOBS.md, "Badges"): 64 hex
-- digits (244 random bits from two v4 UUIDs), set for every row, new rows included, by default;
-- rotating it writes a new one. Stored in clear: it reveals only what the badge shows.
ALTER TABLE "jobs" ADD COLUMN "badge_token" TEXT NOT NULL DEFAULT ('bdg_' || replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''));
CREATE UNIQUE INDEX "jobs_badge_token_key" ON "jobs"("badge_token");
ALTER TABLE "monitors" ADD COLUMN "badge_token" TEXT NOT NULL DEFAULT ('bdg_' || replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''));
CREATE UNIQUE INDEX "monitors_badge_token_key" ON "monitors"("badge_token");
