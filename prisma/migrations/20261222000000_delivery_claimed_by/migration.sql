-- The notifier that claimed a delivery (its heartbeat's workers.id), so that another notifier can
-- take over what it was sending once its heartbeat stops (docs/RELIABILITY.md, "A dead notifier").
-- No index: the claim stays a HOT update, and the takeover reads the few processing rows.
ALTER TABLE "deliveries" ADD COLUMN "claimed_by" TEXT;
