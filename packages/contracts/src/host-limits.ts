/**
 * A workspace's budget for one target host, and the host's Retry-After cool-down
 * (docs/JOBS.md, "Host budgets and Retry-After"). `host` is the URL's host name, lower-case, without port.
 */
export interface HostLimit {
  host: string;
  /** Requests to the host in flight at once, across all executors; null for no limit. */
  max_concurrency: number | null;
  /** Requests started per second; null for no limit. */
  max_per_second: number | null;
  /** Until when the host asked (Retry-After) to be left alone; null when no cool-down runs. */
  cooldown_until: string | null;
  created_at: string;
  updated_at: string;
}

/** PUT /v1/host-limits/:host: at least one of the two. */
export interface HostLimitInput {
  max_concurrency?: number;
  max_per_second?: number;
}
