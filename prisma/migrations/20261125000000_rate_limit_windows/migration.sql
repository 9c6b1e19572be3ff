-- RATE_LIMIT_PER_MINUTE when the queues are on PostgreSQL and no Redis is in use: one row per API
-- token (by its hash) holds its current one-minute window. Unlogged: a crash only resets the
-- counts, and the table is not worth WAL.

-- CreateTable
CREATE UNLOGGED TABLE "rate_limit_windows" (
    "key" TEXT NOT NULL,
    "window_ends_at" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("key")
);
