-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "park_requested" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "waiting_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "waiting_payload" JSONB,
ADD COLUMN     "waiting_reason" TEXT;

-- CreateIndex
CREATE INDEX "executions_workspace_id_dead_lettered_at_idx" ON "executions"("workspace_id", "dead_lettered_at");

-- CreateIndex
CREATE INDEX "executions_created_at_idx" ON "executions"("created_at");

-- CreateIndex
CREATE INDEX "executions_job_name_idx" ON "executions" USING GIN ("job_name" gin_trgm_ops);
