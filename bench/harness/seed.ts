// Seeding straight into the throwaway database with INSERT ... SELECT generate_series: the
// service has no bulk-create API, and a million rows through POST /v1/jobs would take hours.
// The JSON columns are built by the service's own job schema, so seeded jobs look like created ones.
import { jobSchema, validate, type JobInput } from '@cronsvc/core';
import type pg from 'pg';

/** A service-shaped random id: prefix + 16 random bytes in base64url, computed by Postgres. */
export const sqlId = (prefix: string) => `'${prefix}_' || translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/=', '-_')`;

export interface JobShape {
  request: unknown;
  retryPolicy: unknown;
}

/** The stored request and retry policy of a plain GET job against the target, with every default. */
export function jobShape(targetUrl: string): JobShape {
  const input = validate<JobInput>(jobSchema, { name: 'bench', kind: 'one_time', request: { url: `${targetUrl}/hit`, method: 'GET' } });
  return { request: input.request, retryPolicy: input.retry_policy };
}

/** A job whose every run fails at once: the target answers 500 and there is one attempt. */
export function failingJobShape(targetUrl: string): JobShape {
  const input = validate<JobInput>(jobSchema, { name: 'bench', kind: 'one_time', request: { url: `${targetUrl}/status/500` }, retry_policy: { max_attempts: 1 } });
  return { request: input.request, retryPolicy: input.retry_policy };
}

export interface SeedJobsOptions {
  workspaceId: string;
  count: number;
  /** Names are `${namePrefix}${i}`. */
  namePrefix: string;
  /** The first `i`; the rows get firstIndex .. firstIndex + count - 1. Default 1. */
  firstIndex?: number;
  kind: string;
  state: string;
  shape: JobShape;
  /** SQL for next_run_at; may use `i` and parameters from `params` starting at $8. */
  nextRunAtSql: string;
  /** SQL for schedule (jsonb); may use `i` and `s.t` (this row's next_run_at). */
  scheduleSql: string;
  /** SQL for schedule_anchor; may use `s.t`. */
  anchorSql?: string;
  params?: unknown[];
  returning?: boolean;
  chunk?: number;
}

export interface SeededJob {
  id: string;
  name: string;
  workspaceId: string;
  nextRunAt: number | null;
}

/** Inserts jobs in chunks; returns (id, name, next_run_at) of each when asked. */
export async function seedJobs(pool: pg.Pool, o: SeedJobsOptions): Promise<SeededJob[]> {
  const chunk = o.chunk ?? 50_000;
  const first = o.firstIndex ?? 1;
  const last = first + o.count - 1;
  const out: SeededJob[] = [];
  for (let from = first; from <= last; from += chunk) {
    const to = Math.min(last, from + chunk - 1);
    const sql = `
      INSERT INTO jobs (id, workspace_id, name, kind, state, schedule, schedule_anchor, request, retry_policy,
                        next_run_at, max_concurrent_executions, created_at, updated_at)
      SELECT ${sqlId('job')}, $1, $2::text || i::text, $3, $4, ${o.scheduleSql}, ${o.anchorSql ?? 'now()'},
             $5::jsonb, $6::jsonb, s.t, 0, now(), now()
        FROM generate_series($7::int, ${to}) AS i, LATERAL (SELECT (${o.nextRunAtSql})::timestamptz AS t) AS s
      ${o.returning ? 'RETURNING id, name, next_run_at' : ''}`;
    const res = await pool.query<{ id: string; name: string; next_run_at: Date | null }>(sql, [
      o.workspaceId,
      o.namePrefix,
      o.kind,
      o.state,
      JSON.stringify(o.shape.request),
      JSON.stringify(o.shape.retryPolicy),
      from,
      ...(o.params ?? []),
    ]);
    if (o.returning) for (const r of res.rows) out.push({ id: r.id, name: r.name, workspaceId: o.workspaceId, nextRunAt: r.next_run_at ? r.next_run_at.getTime() : null });
  }
  return out;
}

/**
 * Active daily schedules, as a workspace holds them: the first half `cron` (daily at the minute of
 * their next fire), the rest `recurring` every 1,440 minutes. `nextRunAtSql` may use `i`
 * (1..count over both halves) and `params` from $8.
 */
export async function seedDailySchedules(
  pool: pg.Pool,
  o: { workspaceId: string; shape: JobShape; count: number; namePrefix: string; nextRunAtSql: string; params?: unknown[]; returning?: boolean },
): Promise<SeededJob[]> {
  const cron = Math.floor(o.count / 2);
  const common = { workspaceId: o.workspaceId, state: 'active', shape: o.shape, nextRunAtSql: o.nextRunAtSql, params: o.params, returning: o.returning };
  return [
    ...(await seedJobs(pool, {
      ...common,
      count: cron,
      namePrefix: `${o.namePrefix}cron-`,
      kind: 'cron',
      scheduleSql: `jsonb_build_object('cron', extract(minute FROM s.t AT TIME ZONE 'UTC')::int || ' ' || extract(hour FROM s.t AT TIME ZONE 'UTC')::int || ' * * *')`,
    })),
    ...(await seedJobs(pool, {
      ...common,
      count: o.count - cron,
      firstIndex: cron + 1,
      namePrefix: `${o.namePrefix}recurring-`,
      kind: 'recurring',
      scheduleSql: `'{"every_n_minutes": 1440}'::jsonb`,
      anchorSql: `s.t - interval '1 day'`,
    })),
  ];
}

/** Active one_time jobs with no schedule, for executions seeded by hand (what run-now would queue). */
export function seedOneTimeJobs(pool: pg.Pool, o: { workspaceId: string; targetUrl: string; count: number; namePrefix: string; shape?: JobShape }): Promise<SeededJob[]> {
  return seedJobs(pool, {
    workspaceId: o.workspaceId,
    count: o.count,
    namePrefix: o.namePrefix,
    kind: 'one_time',
    state: 'active',
    shape: o.shape ?? jobShape(o.targetUrl),
    nextRunAtSql: 'NULL',
    scheduleSql: 'NULL',
    returning: true,
  });
}

/**
 * Queued manual executions (what run-now writes before it enqueues), spread round-robin over
 * `jobs`, each in its job's workspace. Returns their ids and scheduled_for, for the harness to enqueue.
 */
export async function seedManualExecutions(
  pool: pg.Pool,
  o: { jobs: { id: string; name: string; workspaceId: string }[]; count: number },
): Promise<{ id: string; scheduledFor: Date }[]> {
  const res = await pool.query<{ id: string; scheduled_for: Date }>(
    `INSERT INTO executions (id, workspace_id, job_id, job_name, status, source, scheduled_for, next_attempt_at, updated_at)
     SELECT ${sqlId('exe')}, ($1::text[])[1 + i % $4], ($2::text[])[1 + i % $4], ($3::text[])[1 + i % $4], 'queued', 'manual', now(), now(), now()
       FROM generate_series(0, $5::int - 1) AS i
     RETURNING id, scheduled_for`,
    [o.jobs.map((j) => j.workspaceId), o.jobs.map((j) => j.id), o.jobs.map((j) => j.name), o.jobs.length, o.count],
  );
  return res.rows.map((r) => ({ id: r.id, scheduledFor: r.scheduled_for }));
}

/**
 * `count` workspaces: the bootstrap workspace "default" and `count - 1` more named
 * `bench-<i>`, made on first use as copies of it (same encrypted signing key: signatures cost the
 * same, and nothing checks them).
 */
export async function benchWorkspaces(pool: pg.Pool, count: number): Promise<string[]> {
  const first = await workspaceId(pool);
  await pool.query(
    `INSERT INTO workspaces (id, name, signing_key, signing_key_created_at, created_at, updated_at)
     SELECT ${sqlId('wsp')}, 'bench-' || i, w.signing_key, now(), now(), now()
       FROM generate_series(1, $2::int - 1) AS i, workspaces w
      WHERE w.id = $1 AND NOT EXISTS (SELECT 1 FROM workspaces x WHERE x.name = 'bench-' || i)`,
    [first, count],
  );
  const rest = await pool.query<{ id: string }>(
    `SELECT id FROM workspaces WHERE name = ANY($1::text[]) ORDER BY substring(name from 7)::int`,
    [Array.from({ length: count - 1 }, (_, i) => `bench-${i + 1}`)],
  );
  return [first, ...rest.rows.map((r) => r.id)];
}

/**
 * Empties every table a scenario writes; workspaces and tokens stay. TRUNCATE fires no DELETE
 * trigger, so the counters the triggers keep are emptied with them.
 */
export async function resetServiceData(pool: pg.Pool): Promise<void> {
  await pool.query(
    'TRUNCATE jobs, job_counts, executions, execution_counts, stored_bytes_totals, attempts, deliveries, events, notification_channels, notification_rules, monitors, rate_limit_windows CASCADE',
  );
}

export async function workspaceId(pool: pg.Pool): Promise<string> {
  const res = await pool.query<{ id: string }>(`SELECT id FROM workspaces WHERE name = 'default' ORDER BY created_at LIMIT 1`);
  if (!res.rows[0]) throw new Error('the bootstrap workspace "default" does not exist (did the api start?)');
  return res.rows[0].id;
}
