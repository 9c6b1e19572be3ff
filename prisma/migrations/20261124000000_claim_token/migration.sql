-- The claim token: every claim of an execution adds one to it, and renewing the lease or recording
-- an attempt requires the value the claim returned, so a worker that stalled past its lease and
-- lost the execution to another can neither hold it again nor record over the new holder
-- (docs/adr/006-leases-on-the-database-clock.md).

-- AlterTable
ALTER TABLE "executions" ADD COLUMN "claim_token" INTEGER NOT NULL DEFAULT 0;
