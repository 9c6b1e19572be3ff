-- The request each attempt sent, with every secret's value masked
-- (docs/adr/019-attempts-record-their-request.md). Null for attempts that sent nothing and for
-- those recorded before this column; adding a nullable column rewrites no row.
ALTER TABLE "attempts" ADD COLUMN "request" JSONB;
ALTER TABLE "step_attempts" ADD COLUMN "request" JSONB;
