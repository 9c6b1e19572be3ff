-- Token scopes and self-managed tokens (docs/API.md, "Authentication"): a name, a scope, the
-- token's first 12 characters to recognise it by, an optional expiry and the last use.
ALTER TABLE "api_tokens"
  ADD COLUMN "name" TEXT,
  ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'full',
  ADD COLUMN "prefix" TEXT,
  ADD COLUMN "expires_at" TIMESTAMPTZ(3),
  ADD COLUMN "last_used_at" TIMESTAMPTZ(3),
  ADD CONSTRAINT "api_tokens_scope_check" CHECK ("scope" IN ('full', 'run', 'read'));

-- The audit log (docs/API.md, "Audit log"): every change, by whom; names of fields, never values.
CREATE TABLE "audit_events" (
  "id" TEXT NOT NULL,
  "workspace_id" TEXT NOT NULL,
  "action" TEXT NOT NULL,
  "target_type" TEXT NOT NULL,
  "target_id" TEXT,
  "actor_type" TEXT NOT NULL,
  "actor_token_id" TEXT,
  "actor_name" TEXT,
  "request_id" TEXT,
  "changed_fields" JSONB NOT NULL DEFAULT '[]',
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "audit_events_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "audit_events_workspace_id_created_at_idx" ON "audit_events" ("workspace_id", "created_at" DESC, "id" DESC);
CREATE INDEX "audit_events_created_at_idx" ON "audit_events" ("created_at");
