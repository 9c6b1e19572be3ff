-- Rewrites of stored values that need SECRETS_ENCRYPTION_KEY, done by the service at start-up
-- under the migration lock (packages/core/src/secrets/upgrade-stored-values.ts): one row per
-- rewrite finished, so later starts skip it without reading the tables again.

-- CreateTable
CREATE TABLE "stored_value_upgrades" (
    "name" TEXT NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stored_value_upgrades_pkey" PRIMARY KEY ("name")
);
