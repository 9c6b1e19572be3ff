-- Step-driven jobs (workflow, webhook_trigger): see docs/adr/010-step-driven-executions.md.

-- AlterTable: the trigger URL's token (encrypted) and its SHA-256 for lookups, and the keyed
-- hash of the shared secret checked on inbound triggers (write-only, never decrypted).
ALTER TABLE "jobs" ADD COLUMN     "webhook_token" TEXT,
ADD COLUMN     "webhook_token_hash" TEXT,
ADD COLUMN     "webhook_secret_hash" TEXT;

-- AlterTable: a step-driven run's steps (copied at its first turn), its position, its context,
-- the inbound request that started it, and the deadline of max_workflow_duration_seconds.
ALTER TABLE "executions" ADD COLUMN     "trigger_input" JSONB,
ADD COLUMN     "steps" JSONB,
ADD COLUMN     "step_index" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "context" JSONB,
ADD COLUMN     "deadline_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "step_executions" (
    "id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "step_index" INTEGER NOT NULL,
    "step_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "input" JSONB,
    "output" JSONB,
    "extracted" JSONB,
    "error_class" TEXT,
    "error_message" TEXT,
    "token_hash" TEXT,
    "waiting_payload" JSONB,
    "expires_at" TIMESTAMPTZ(3),
    "decision" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "step_executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "step_attempts" (
    "execution_id" TEXT NOT NULL,
    "step_index" INTEGER NOT NULL,
    "number" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "body_preview" TEXT,
    "response_headers" JSONB,
    "error_class" TEXT,
    "error_message" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "step_attempts_pkey" PRIMARY KEY ("execution_id","step_index","number")
);

-- CreateTable
CREATE TABLE "job_contexts" (
    "job_id" TEXT NOT NULL,
    "entries" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_contexts_pkey" PRIMARY KEY ("job_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "jobs_webhook_token_hash_key" ON "jobs"("webhook_token_hash");

-- CreateIndex: the wait timers' scan. Partial on a column only waits set and clear (never on
-- status), so an update that leaves waiting_expires_at alone, such as the executor's claim and
-- recording of request attempts, stays free to be a HOT update and never writes to this index.
CREATE INDEX "executions_waiting_expires_at_idx" ON "executions"("waiting_expires_at") WHERE waiting_expires_at IS NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "step_executions_execution_id_step_index_key" ON "step_executions"("execution_id", "step_index");

-- CreateIndex
CREATE UNIQUE INDEX "step_executions_token_hash_key" ON "step_executions"("token_hash");

-- AddForeignKey
ALTER TABLE "step_executions" ADD CONSTRAINT "step_executions_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "step_attempts" ADD CONSTRAINT "step_attempts_execution_id_step_index_fkey" FOREIGN KEY ("execution_id", "step_index") REFERENCES "step_executions"("execution_id", "step_index") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_contexts" ADD CONSTRAINT "job_contexts_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
