-- A monitor's state history (docs/MONITORS.md, "State history"): how long it was up and how long
-- down on each UTC day, so a status page draws its 90 daily bars and its uptime. `state_since` is
-- when the current state began; when the state changes, the stretch it held is added to the days
-- it spans (the current, open stretch is added when a page is read). A row trigger keeps it, so
-- every statement that changes a monitor's state (a ping, the down sweep, pause, resume, and any
-- later one) keeps the history, as execution_counts' triggers keep execution totals. The moment
-- of a change is the row's new updated_at, which each of those statements sets from its clock.
-- History starts with this migration: monitors that exist now begin their current state now.
ALTER TABLE "monitors" ADD COLUMN "state_since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

CREATE TABLE "monitor_state_days" (
    "monitor_id" TEXT NOT NULL,
    -- The UTC day's first instant.
    "day" TIMESTAMPTZ(3) NOT NULL,
    "up_ms" BIGINT NOT NULL,
    "down_ms" BIGINT NOT NULL,
    CONSTRAINT "monitor_state_days_pkey" PRIMARY KEY ("monitor_id", "day"),
    CONSTRAINT "monitor_state_days_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Only the days a status page can show are written (90, and one more for the clocks' skew), and
-- older ones are deleted, one short range of the primary key: a monitor has at most 92 rows.
-- Spans are in hours, not days, so no session time zone can move them.
CREATE FUNCTION "monitor_state_days_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ended timestamptz := NEW.updated_at;
  began timestamptz := GREATEST(OLD.state_since, NEW.updated_at - interval '2184 hours');
BEGIN
  IF OLD.state IN ('up', 'down') AND ended > began THEN
    INSERT INTO monitor_state_days AS d (monitor_id, day, up_ms, down_ms)
    SELECT OLD.id, s.day, CASE WHEN OLD.state = 'up' THEN s.ms ELSE 0 END, CASE WHEN OLD.state = 'down' THEN s.ms ELSE 0 END
      FROM (SELECT t AS day, round(extract(epoch FROM LEAST(ended, t + interval '24 hours') - GREATEST(began, t)) * 1000)::bigint AS ms
              FROM generate_series(date_trunc('day', began, 'UTC'), ended, interval '24 hours') AS t) AS s
     WHERE s.ms > 0
     ORDER BY s.day
    ON CONFLICT (monitor_id, day) DO UPDATE SET up_ms = d.up_ms + EXCLUDED.up_ms, down_ms = d.down_ms + EXCLUDED.down_ms;
  END IF;
  DELETE FROM monitor_state_days WHERE monitor_id = OLD.id AND day < date_trunc('day', ended, 'UTC') - interval '2184 hours';
  NEW.state_since := ended;
  RETURN NEW;
END $$;

CREATE TRIGGER "monitor_state_days_change" BEFORE UPDATE OF "state" ON "monitors"
  FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION "monitor_state_days_apply"();
