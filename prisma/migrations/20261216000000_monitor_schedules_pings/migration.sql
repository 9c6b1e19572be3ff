-- Monitors on a cron schedule, start/fail pings with run durations, and the ping history
-- (docs/MONITORS.md). A monitor has an interval or a cron schedule, never both, never neither.
ALTER TABLE "monitors" ALTER COLUMN "expected_interval_sec" DROP NOT NULL;
ALTER TABLE "monitors" ADD COLUMN "schedule_cron" TEXT;
ALTER TABLE "monitors" ADD COLUMN "max_duration_sec" INTEGER;
ALTER TABLE "monitors" ADD COLUMN "window_start_at" TIMESTAMPTZ(3);
ALTER TABLE "monitors" ADD COLUMN "next_expected_at" TIMESTAMPTZ(3);
ALTER TABLE "monitors" ADD COLUMN "run_started_at" TIMESTAMPTZ(3);
ALTER TABLE "monitors" ADD COLUMN "last_duration_ms" INTEGER;
ALTER TABLE "monitors" ADD COLUMN "ping_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_interval_or_cron_check"
  CHECK (("expected_interval_sec" IS NULL) <> ("schedule_cron" IS NULL));

-- Monitors up before this release: their window started at their last ping.
UPDATE "monitors" SET "window_start_at" = "last_ping_at",
  "next_expected_at" = CASE WHEN "state" = 'up' THEN "last_ping_at" + make_interval(secs => "expected_interval_sec") END
  WHERE "last_ping_at" IS NOT NULL;

-- Every ping, numbered per monitor (`seq`, from monitors.ping_count): the primary key is the
-- index the list reads newest first and the pruning deletes the oldest by.
CREATE TABLE "monitor_pings" (
    "monitor_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "exit_status" INTEGER,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER,
    "body_preview" TEXT,
    "source_ip" TEXT,
    "user_agent" TEXT,
    CONSTRAINT "monitor_pings_pkey" PRIMARY KEY ("monitor_id", "seq"),
    CONSTRAINT "monitor_pings_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
