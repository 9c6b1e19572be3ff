-- Tokens made by BOOTSTRAP_API_TOKEN are marked, so that a start without that setting (or with
-- another value) revokes them (docs/CONFIGURATION.md, BOOTSTRAP_API_TOKEN).
ALTER TABLE "api_tokens" ADD COLUMN "from_bootstrap" BOOLEAN NOT NULL DEFAULT false;

-- Tokens bootstrapped before this column existed are not known, except `dev-token`, the one
-- `npm run dev` sets: a later `npm start` must not go on accepting it.
UPDATE "api_tokens" SET "from_bootstrap" = true WHERE "token_hash" = encode(sha256(convert_to('dev-token', 'UTF8')), 'hex');
