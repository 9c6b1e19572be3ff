import type { PageQuery } from './lists.js';

/** new: never pinged yet. */
export const MONITOR_STATES = ['new', 'up', 'down', 'paused'] as const;
export type MonitorState = (typeof MONITOR_STATES)[number];

export interface Monitor {
  id: string;
  name: string;
  expected_interval_sec: number;
  grace_sec: number;
  state: MonitorState;
  last_ping_at: string | null;
  next_due_at: string | null;
  /** Null only when the stored token cannot be decrypted (SECRETS_ENCRYPTION_KEY changed). */
  ping_url: string | null;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/monitors. */
export interface MonitorInput {
  name: string;
  expected_interval_sec: number;
  grace_sec?: number;
}

/** Body of PATCH /v1/monitors/:id: at least one field. */
export type MonitorPatch = Partial<MonitorInput>;

export interface MonitorListQuery extends PageQuery {
  state?: MonitorState;
}

/** GET|POST /v1/ping/:token answer. */
export interface PingResult {
  ok: true;
}
