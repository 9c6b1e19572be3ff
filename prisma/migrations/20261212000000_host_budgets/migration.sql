-- Budgets per target host and Retry-After cool-downs (docs/adr/026-a-gate-in-the-attempt-pipeline.md).
-- One row per workspace and host name: its limits (either may be null), and until when the host
-- asked to be left alone. A row with no limit exists only while it holds a cool-down.
CREATE TABLE "host_limits" (
    "workspace_id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "max_concurrency" INTEGER,
    "max_per_second" DOUBLE PRECISION,
    "cooldown_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "host_limits_pkey" PRIMARY KEY ("workspace_id", "host"),
    CONSTRAINT "host_limits_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The time an attempt waited for its host's budget or cool-down before it was sent.
ALTER TABLE "attempts" ADD COLUMN "budget_wait_ms" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "step_attempts" ADD COLUMN "budget_wait_ms" INTEGER NOT NULL DEFAULT 0;
-- Set when the gate first defers an execution's next attempt, cleared by the attempt's recording:
-- the wait across deferrals is counted from it.
ALTER TABLE "executions" ADD COLUMN "budget_waiting_since" TIMESTAMPTZ(3);

-- The shared limiter when the queues are on PostgreSQL (with Redis it lives in Redis). Unlogged:
-- a crash loses the counts, which only lets a host be called sooner, never blocks it.
CREATE UNLOGGED TABLE "host_budget_slots" (
    "workspace_id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "host_budget_slots_pkey" PRIMARY KEY ("workspace_id", "host", "token")
);
CREATE UNLOGGED TABLE "host_budget_rates" (
    "workspace_id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    -- The theoretical arrival time of the next request (GCRA): none may start before it.
    "next_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "host_budget_rates_pkey" PRIMARY KEY ("workspace_id", "host")
);

-- Takes one request's place in a host's budget: 0 when taken, the milliseconds until the rate
-- allows the next one, or -1 when max_concurrency requests are out. The advisory lock makes the
-- takes of one workspace and host run one at a time across executors; slots expire by themselves
-- after hold_ms (a crashed executor's slots free the host within its request's timeout).
CREATE FUNCTION host_budget_take(p_workspace TEXT, p_host TEXT, p_token TEXT, p_max INTEGER, p_interval_ms DOUBLE PRECISION, p_hold_ms INTEGER)
RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now TIMESTAMPTZ := clock_timestamp();
  v_next TIMESTAMPTZ;
  v_out INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_workspace || ' ' || p_host, 26));
  IF p_max IS NOT NULL THEN
    DELETE FROM host_budget_slots WHERE workspace_id = p_workspace AND host = p_host AND expires_at < v_now;
    SELECT count(*) INTO v_out FROM host_budget_slots WHERE workspace_id = p_workspace AND host = p_host;
    IF v_out >= p_max THEN RETURN -1; END IF;
  END IF;
  IF p_interval_ms IS NOT NULL THEN
    SELECT next_at INTO v_next FROM host_budget_rates WHERE workspace_id = p_workspace AND host = p_host;
    IF v_next IS NOT NULL AND v_next > v_now THEN
      RETURN greatest(1, ceil(extract(epoch FROM v_next - v_now) * 1000))::INTEGER;
    END IF;
    -- A late taker keeps up to a quarter interval of the slack, so polling does not cost throughput
    -- and no second holds more than the rate plus one.
    v_next := greatest(coalesce(v_next, v_now), v_now - p_interval_ms / 4 * interval '1 millisecond') + p_interval_ms * interval '1 millisecond';
    INSERT INTO host_budget_rates (workspace_id, host, next_at) VALUES (p_workspace, p_host, v_next)
      ON CONFLICT (workspace_id, host) DO UPDATE SET next_at = EXCLUDED.next_at;
  END IF;
  IF p_max IS NOT NULL THEN
    INSERT INTO host_budget_slots (workspace_id, host, token, expires_at) VALUES (p_workspace, p_host, p_token, v_now + p_hold_ms * interval '1 millisecond');
  END IF;
  RETURN 0;
END $$;
