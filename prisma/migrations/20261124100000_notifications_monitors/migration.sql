-- Notification channels, rules and heartbeat monitors, and the event outbox the notifier turns
-- into deliveries (docs/adr/009-event-outbox-and-channel-adapters.md).

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "monitor_id" TEXT,
ADD COLUMN     "channel_id" TEXT,
ADD COLUMN     "rule_id" TEXT,
ADD COLUMN     "context" JSONB;

-- CreateTable
CREATE TABLE "events" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "execution_id" TEXT,
    "monitor_id" TEXT,
    "payload" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_channels" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "credentials" TEXT NOT NULL,
    "secret_refs" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_rules" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "channel_id" TEXT NOT NULL,
    "job_id" TEXT,
    "monitor_id" TEXT,
    "event" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitors" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "expected_interval_sec" INTEGER NOT NULL,
    "grace_sec" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL,
    "ping_token" TEXT NOT NULL,
    "last_ping_at" TIMESTAMPTZ(3),
    "next_due_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "monitors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "deliveries_monitor_id_idx" ON "deliveries"("monitor_id");

-- CreateIndex
CREATE INDEX "notification_channels_workspace_id_created_at_idx" ON "notification_channels"("workspace_id", "created_at");

-- CreateIndex
-- NULLS NOT DISTINCT (which Prisma cannot express): a rule has a job or a monitor, never both,
-- and the same (channel, event) twice on one of them would send every notification twice.
CREATE UNIQUE INDEX "notification_rules_channel_id_event_job_id_monitor_id_key" ON "notification_rules"("channel_id", "event", "job_id", "monitor_id") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "notification_rules_job_id_idx" ON "notification_rules"("job_id");

-- CreateIndex
CREATE INDEX "notification_rules_monitor_id_idx" ON "notification_rules"("monitor_id");

-- CreateIndex
CREATE UNIQUE INDEX "monitors_ping_token_key" ON "monitors"("ping_token");

-- CreateIndex
CREATE INDEX "monitors_workspace_id_created_at_idx" ON "monitors"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "monitors_next_due_at_idx" ON "monitors"("next_due_at");

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_rules" ADD CONSTRAINT "notification_rules_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "notification_channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_rules" ADD CONSTRAINT "notification_rules_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_rules" ADD CONSTRAINT "notification_rules_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
