import type { PageQuery } from './lists.js';

/** new: never pinged yet. */
export const MONITOR_STATES = ['new', 'up', 'down', 'paused'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

/** A monitor's cron schedule: 5 fields, UTC. */
export interface MonitorSchedule {
  cron: string;
}

export interface Monitor {
  id: string;
  name: string;
  /** Null when the monitor has a cron schedule. */
  expected_interval_sec: number | null;
  /** Null when the monitor has an interval. */
  schedule: MonitorSchedule | null;
  grace_sec: number;
  /** A started run that has not succeeded within it takes the monitor down. */
  max_duration_sec: number | null;
  state: MonitorState;
  last_ping_at: string | null;
  /** When the next ping is expected, while the monitor is up. */
  next_expected_at: string | null;
  /** When the monitor goes down without a ping, while it is up. */
  next_due_at: string | null;
  /** Duration of the last run that was started with a start ping and then ended. */
  last_duration_ms: number | null;
  /** Null only when the stored token cannot be decrypted (SECRETS_ENCRYPTION_KEY changed). */
  ping_url: string | null;
  /** The public, unguessable URL of the monitor's status badge (SVG; `.json` for shields.io). */
  badge_url: string;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/monitors: `expected_interval_sec` or `schedule`, not both. */
export interface MonitorInput {
  name: string;
  expected_interval_sec?: number;
  schedule?: MonitorSchedule;
  grace_sec?: number;
  max_duration_sec?: number | null;
}

/** Body of PATCH /v1/monitors/:id: at least one field. */
export type MonitorPatch = Partial<MonitorInput>;

export interface MonitorListQuery extends PageQuery {
  state?: MonitorState;
}

/**
 * What a badge or status page says of a job (passing, failing, late, paused, new) or a monitor
 * (up, down, paused, new).
 */
export const BADGE_STATES = ['passing', 'failing', 'late', 'paused', 'up', 'down', 'new'] as const;
export type BadgeState = (typeof BADGE_STATES)[number];

/** GET /v1/badges/:token.json: a shields.io endpoint object. */
export type ShieldsEndpoint = { schemaVersion: 1; label: string; message: BadgeState; color: string };

/** GET|POST /v1/ping/:token answer. */
export interface PingResult {
  ok: true;
}

export const MONITOR_PING_KINDS = ['start', 'success', 'fail'] as const;
export type MonitorPingKind = (typeof MONITOR_PING_KINDS)[number];

/** An item of GET /v1/monitors/:id/pings, newest first. */
export interface MonitorPing {
  kind: MonitorPingKind;
  /** From /v1/ping/:token/:exit_status, else null. */
  exit_status: number | null;
  received_at: string;
  /** From the run's start ping, on the success or fail that ends it. */
  duration_ms: number | null;
  /** The first 10 KiB of a POST body. */
  body_preview: string | null;
  source_ip: string | null;
  user_agent: string | null;
}
/** A public status page (docs/API.md, "Status pages"): the jobs and monitors it shows, at `public_url`. */
export interface StatusPage {
  id: string;
  name: string;
  job_ids: string[];
  monitor_ids: string[];
  public_url: string;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/status-pages. */
export interface StatusPageInput {
  name: string;
  job_ids?: string[];
  monitor_ids?: string[];
}

/** Body of PATCH /v1/status-pages/:id: at least one field. */
export type StatusPagePatch = Partial<StatusPageInput>;

/**
 * A day of a status page's bars: a job's `passing` or `failing`, a monitor's `up` or `down` (down
 * at any time of the day); `none` when nothing ran (a job) or the monitor was neither up nor down.
 */
export type StatusDayState = 'passing' | 'failing' | 'up' | 'down' | 'none';

/** One job or monitor on a public status page: its name and states only. */
export type StatusPageItem = {
  name: string;
  state: BadgeState;
  /**
   * Over the last 90 days (0..1): a job's succeeded executions over those that ended; a monitor's
   * time up over its time up or down. Null without any.
   */
  uptime_90d: number | null;
  /** 90 UTC days, oldest first, today last. */
  days: { date: string; state: StatusDayState }[];
};

/** GET /v1/status/:token with Accept: application/json. */
export type PublicStatusPage = {
  name: string;
  updated_at: string;
  items: StatusPageItem[];
};
