-- One row per running worker process (scheduler, executor, notifier), written on the database's
-- clock every few seconds and deleted when the process stops cleanly, or by its supervisor when
-- it dies. Readiness reads it (a worker whose row is missing or stale is not running), and the
-- id is stable for the life of the process, so work a process claims can name it.
CREATE TABLE "workers" (
  "id" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "hostname" TEXT NOT NULL,
  "pid" INTEGER NOT NULL,
  -- The `npm start` supervisor (or ALL_IN_ONE process) the worker belongs to; null when started alone.
  "supervisor" TEXT,
  "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);
