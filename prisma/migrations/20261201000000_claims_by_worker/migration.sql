-- Liveness-based reclaim (docs/adr/018-liveness-based-reclaim.md): each claim names the worker
-- that made it, so that when that worker's heartbeat stops, another executor can end its leases
-- at once instead of waiting for them to run out. Not indexed: the claim must stay a HOT update,
-- and the reclaim reads unfinished executions only, once per dead worker.
ALTER TABLE "executions" ADD COLUMN "claimed_by" TEXT;

-- When an executor last took over this worker's work; a worker whose heartbeat is newer (it was
-- only stalled, and beats again) is taken over again if it goes quiet again.
ALTER TABLE "workers" ADD COLUMN "reclaimed_at" TIMESTAMPTZ(3);
