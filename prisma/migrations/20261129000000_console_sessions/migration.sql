-- Sessions of the web console (docs/CONSOLE.md): one row per signed-in browser. The cookie holds a
-- random session id; only its SHA-256 is stored, so reading this table gives no way in. A session
-- belongs to the API token it was opened with: deleting the token (or its workspace) ends it.

-- CreateTable
CREATE TABLE "console_sessions" (
    "id_hash" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "token_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "console_sessions_token_id_idx" ON "console_sessions"("token_id");

-- CreateIndex
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions"("expires_at");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_token_id_fkey" FOREIGN KEY ("token_id") REFERENCES "api_tokens"("id") ON DELETE CASCADE ON UPDATE CASCADE;
