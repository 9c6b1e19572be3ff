-- Claims since the execution's last recording. A claim adds one and every recording (an attempt,
-- a workflow turn) sets it back to 0, so it counts the times an attempt was started and its outcome
-- never stored. Past a few, the executor stops sending it again and ends the execution failed
-- with RECORD_FAILED (docs/RELIABILITY.md): a record that cannot be written must not turn into a
-- request sent every lease period forever.

-- AlterTable
ALTER TABLE "executions" ADD COLUMN "unrecorded_claims" INTEGER NOT NULL DEFAULT 0;
