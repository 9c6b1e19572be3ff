-- The fire ledger (docs/adr/019-fire-ledger.md). A slot that got its own execution is that
-- execution; two nullable columns say what the row cannot: the slot's jitter offset and whether it
-- was the catch-up of a window. Both stay null for an ordinary fire, which so costs no byte more.
ALTER TABLE "executions" ADD COLUMN "jitter_ms" INTEGER;
ALTER TABLE "executions" ADD COLUMN "caught_up" BOOLEAN;

-- Slots without an execution of their own: missed (a window passed while nothing fired it) and
-- skipped (overlap policy). The primary key keeps each slot once.
CREATE TABLE "fire_gaps" (
    "job_id" TEXT NOT NULL,
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    -- The catch-up execution that covered a missed slot; no foreign key, like deliveries: a gap
    -- outlives nothing (retention prunes gaps with executions of the same age), and a pruned
    -- execution must not wait on the gaps that name it.
    "execution_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "fire_gaps_pkey" PRIMARY KEY ("job_id", "scheduled_for"),
    CONSTRAINT "fire_gaps_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "fire_gaps_workspace_id_scheduled_for_idx" ON "fire_gaps"("workspace_id", "scheduled_for");
CREATE INDEX "fire_gaps_created_at_idx" ON "fire_gaps"("created_at");

-- Fire policies of the kinds with a schedule (docs/JOBS.md, "Fire policies"); the other kinds keep
-- the defaults and do not show them.
ALTER TABLE "jobs" ADD COLUMN "overlap_policy" TEXT NOT NULL DEFAULT 'queue';
ALTER TABLE "jobs" ADD COLUMN "catch_up_policy" TEXT NOT NULL DEFAULT 'one';
ALTER TABLE "jobs" ADD COLUMN "jitter_seconds" INTEGER NOT NULL DEFAULT 0;

-- fire.missed events name their job: a missed slot may have no execution.
ALTER TABLE "events" ADD COLUMN "job_id" TEXT;
