-- Ping tokens were stored in clear; like every other token they are now found by their SHA-256
-- (hex of the UTF-8 token, as the code computes it) under a unique index, and the token itself
-- is kept encrypted, because the ping URL is shown on every read of a monitor. Existing rows get
-- their hash here, so their ping URLs keep working at once; their clear tokens are encrypted by
-- the service at start-up (it needs SECRETS_ENCRYPTION_KEY, which SQL does not have) and read
-- as they are until then.

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN "ping_token_hash" TEXT;
UPDATE "monitors" SET "ping_token_hash" = encode(sha256(convert_to("ping_token", 'UTF8')), 'hex');
ALTER TABLE "monitors" ALTER COLUMN "ping_token_hash" SET NOT NULL;

-- DropIndex
DROP INDEX "monitors_ping_token_key";

-- CreateIndex
CREATE UNIQUE INDEX "monitors_ping_token_hash_key" ON "monitors"("ping_token_hash");
