-- host_budget_take() reads the clock once it holds the lock (docs/adr/026-a-gate-in-the-attempt-pipeline.md):
-- a taker that waited for the lock spaced the next start from the moment it began waiting, and
-- let requests closer together than max_per_second allows.
CREATE OR REPLACE FUNCTION host_budget_take(p_workspace TEXT, p_host TEXT, p_token TEXT, p_max INTEGER, p_interval_ms DOUBLE PRECISION, p_hold_ms INTEGER)
RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now TIMESTAMPTZ;
  v_next TIMESTAMPTZ;
  v_out INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_workspace || ' ' || p_host, 26));
  v_now := clock_timestamp();
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
