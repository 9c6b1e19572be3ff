-- Public status pages (docs/API.md, "Status pages"): a name and the jobs and monitors shown; the token
-- is the secret part of the public URL. Items deleted since are left out when the page is shown.
CREATE TABLE "status_pages" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "job_ids" JSONB NOT NULL,
    "monitor_ids" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "status_pages_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "status_pages_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "status_pages_token_key" ON "status_pages"("token");
CREATE INDEX "status_pages_workspace_id_created_at_idx" ON "status_pages"("workspace_id", "created_at");
