-- Alerts people keep switched on (docs/NOTIFICATIONS.md, "Quiet but safe alerts").

-- A job's run of consecutive failed executions, counted in finish order. Written in the statement
-- that records an execution's end, under this row's lock; `epoch` counts the streaks that ended,
-- so (job, epoch) names one streak. prev_* hold the values before the last write, for the
-- statement's RETURNING.
CREATE TABLE job_streaks (
  job_id        text PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  failures      integer NOT NULL DEFAULT 0,
  epoch         bigint NOT NULL DEFAULT 0,
  prev_failures integer NOT NULL DEFAULT 0,
  prev_epoch    bigint NOT NULL DEFAULT 0,
  updated_at    timestamptz(3) NOT NULL
);

-- An execution event's place in its job's streak: for execution.failed the failures so far
-- including this one, for execution.succeeded the failures of the streak it ended.
ALTER TABLE events ADD COLUMN streak_failures integer, ADD COLUMN streak_epoch bigint;

ALTER TABLE notification_rules
  ADD COLUMN after_consecutive_failures integer NOT NULL DEFAULT 1,
  ADD COLUMN realert_after_minutes integer DEFAULT 0,
  ADD COLUMN snoozed_until timestamptz(3),
  ADD COLUMN last_delivered_at timestamptz(3),
  ADD COLUMN held_back integer NOT NULL DEFAULT 0,
  ADD COLUMN alerted_epoch bigint;

-- The public snooze links of deliveries: the sha-256 of the token, valid 7 days.
CREATE TABLE rule_snooze_tokens (
  token_hash text PRIMARY KEY,
  rule_id    text NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
  expires_at timestamptz(3) NOT NULL
);
CREATE INDEX rule_snooze_tokens_rule_id_idx ON rule_snooze_tokens (rule_id);
CREATE INDEX rule_snooze_tokens_expires_at_idx ON rule_snooze_tokens (expires_at);
