-- host_budget_reserve() replaces host_budget_take() for the executors of this release
-- (docs/adr/026-a-gate-in-the-attempt-pipeline.md, "The rate: a start kept for each request").
-- A request that would have to wait for the rate no longer asks again at every start another
-- request gets: the start it will have is kept for it, up to how long it may still wait, and it is
-- told in how many milliseconds it begins. host_budget_take() stays for executors of the previous
-- release during an upgrade: it keeps to the same lock, tables and rules, so both kinds share one budget.
--
-- Answers a pair: {1, ms until the request's start} when it has its place, {0, ms} when the next
-- start is further off than p_max_wait_ms (nothing is kept), {-1, 0} when max_concurrency requests
-- are out. A place kept for a later start counts as out from now until its start plus p_hold_ms.
CREATE FUNCTION host_budget_reserve(p_workspace TEXT, p_host TEXT, p_token TEXT, p_max INTEGER, p_interval_ms DOUBLE PRECISION, p_hold_ms INTEGER, p_max_wait_ms INTEGER)
RETURNS INTEGER[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_now TIMESTAMPTZ;
  v_next TIMESTAMPTZ;
  v_out INTEGER;
  v_start_in INTEGER := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_workspace || ' ' || p_host, 26));
  -- The clock is read once the lock is held, so a taker that waited for it counts from now.
  v_now := clock_timestamp();
  IF p_max IS NOT NULL THEN
    DELETE FROM host_budget_slots WHERE workspace_id = p_workspace AND host = p_host AND expires_at < v_now;
    SELECT count(*) INTO v_out FROM host_budget_slots WHERE workspace_id = p_workspace AND host = p_host;
    IF v_out >= p_max THEN RETURN ARRAY[-1, 0]; END IF;
  END IF;
  IF p_interval_ms IS NOT NULL THEN
    SELECT next_at INTO v_next FROM host_budget_rates WHERE workspace_id = p_workspace AND host = p_host;
    IF v_next IS NOT NULL AND v_next > v_now THEN
      v_start_in := ceil(extract(epoch FROM v_next - v_now) * 1000)::INTEGER;
      IF v_start_in > p_max_wait_ms THEN RETURN ARRAY[0, v_start_in]; END IF;
    END IF;
    -- A late taker keeps up to a quarter interval of the slack, so waking a little late does not
    -- cost throughput, and no second holds more starts than the rate plus one.
    v_next := greatest(coalesce(v_next, v_now), v_now - p_interval_ms / 4 * interval '1 millisecond') + p_interval_ms * interval '1 millisecond';
    INSERT INTO host_budget_rates (workspace_id, host, next_at) VALUES (p_workspace, p_host, v_next)
      ON CONFLICT (workspace_id, host) DO UPDATE SET next_at = EXCLUDED.next_at;
  END IF;
  IF p_max IS NOT NULL THEN
    INSERT INTO host_budget_slots (workspace_id, host, token, expires_at)
      VALUES (p_workspace, p_host, p_token, v_now + (v_start_in + p_hold_ms) * interval '1 millisecond');
  END IF;
  RETURN ARRAY[1, v_start_in];
END $$;
