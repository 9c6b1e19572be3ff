-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "signing_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "schedule" JSONB,
    "schedule_anchor" TIMESTAMPTZ(3) NOT NULL,
    "request" JSONB,
    "steps" JSONB,
    "retry_policy" JSONB NOT NULL,
    "next_run_at" TIMESTAMPTZ(3),
    "max_concurrent_executions" INTEGER NOT NULL,
    "max_workflow_duration_seconds" INTEGER,
    "on_success_url" TEXT,
    "on_failure_url" TEXT,
    "notification_override" TEXT NOT NULL DEFAULT 'inherit',
    "idempotency_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "fire_key" TEXT,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),
    "variables" JSONB,
    "final_response" JSONB,
    "final_output" JSONB,
    "error_class" TEXT,
    "error_message" TEXT,
    "dead_lettered_at" TIMESTAMPTZ(3),
    "replay_of_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "execution_id" TEXT NOT NULL,
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

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("execution_id","number")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_workspace_id_idx" ON "api_tokens"("workspace_id");

-- CreateIndex
CREATE INDEX "jobs_workspace_id_created_at_idx" ON "jobs"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "jobs_next_run_at_idx" ON "jobs"("next_run_at");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_workspace_id_idempotency_key_key" ON "jobs"("workspace_id", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "executions_fire_key_key" ON "executions"("fire_key");

-- CreateIndex
CREATE INDEX "executions_workspace_id_scheduled_for_idx" ON "executions"("workspace_id", "scheduled_for");

-- CreateIndex
CREATE INDEX "executions_workspace_id_created_at_idx" ON "executions"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "executions_job_id_scheduled_for_idx" ON "executions"("job_id", "scheduled_for");

-- CreateIndex
CREATE INDEX "executions_status_next_attempt_at_idx" ON "executions"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
