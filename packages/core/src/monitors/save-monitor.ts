import Joi from 'joi';
import type { Actor } from '../access/actor.js';
import { fieldsOf, withAudit, writeAudit } from '../access/audit.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { cronExpression, timezoneRejected } from '../jobs/job-schema.js';
import { newId, newToken } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { hashToken } from '../ids/ids.js';
import { findMonitor, type MonitorRow } from './monitor-store.js';
import { downDeadline, nextExpectedAfter } from './monitor-schedule.js';
import { sealPingToken } from './ping-token.js';

const MAX_SECONDS = 31_536_000;
const MAX_DURATION_SECONDS = 86_400;

const fields = {
  name: Joi.string().trim().min(1).max(200),
  expected_interval_sec: Joi.number().integer().min(1).max(MAX_SECONDS),
  schedule: Joi.object({ cron: cronExpression.required(), timezone: timezoneRejected }),
  grace_sec: Joi.number().integer().min(0).max(MAX_SECONDS),
  max_duration_sec: Joi.number().integer().min(1).max(MAX_DURATION_SECONDS).allow(null),
};
export const createSchema = Joi.object({
  name: fields.name.required(),
  expected_interval_sec: fields.expected_interval_sec,
  schedule: fields.schedule,
  grace_sec: fields.grace_sec.default(0),
  max_duration_sec: fields.max_duration_sec.default(null),
});
/** Giving an interval replaces a cron schedule and the other way round. */
export const patchSchema = Joi.object(fields).min(1).messages({ 'object.min': 'a PATCH must change at least one field' });

/**
 * Validates a create or PATCH body, and that it has an interval or a cron schedule, not both (a
 * create needs one of them). Checked here rather than in the schema, whose JSON Schema form (the
 * OpenAPI document) stays plain.
 */
function validateMonitor<T>(schema: Joi.ObjectSchema, body: unknown, creating: boolean): T {
  let problems: ErrorDetail[] = [];
  let value: T | undefined;
  try {
    value = validate<T>(schema, body);
  } catch (error) {
    if (!(error instanceof AppError) || !error.details) throw error;
    problems = [...error.details];
  }
  const given = (key: string) => body !== null && typeof body === 'object' && (body as Record<string, unknown>)[key] !== undefined;
  const named = (path: string) => problems.some((p) => p.path === path || p.path.startsWith(`${path}.`));
  if (given('expected_interval_sec') && given('schedule')) {
    problems.push({ path: 'expected_interval_sec', message: 'cannot be given with schedule: a monitor has an interval or a cron schedule, not both' });
  } else if (creating && !given('expected_interval_sec') && !given('schedule') && !named('expected_interval_sec') && !named('(body)')) {
    problems.push({ path: 'expected_interval_sec', message: 'is required unless schedule is given' });
  }
  if (problems.length > 0) throw AppError.validation(problems);
  return value as T;
}

interface MonitorInput {
  name: string;
  expected_interval_sec?: number;
  schedule?: { cron: string };
  grace_sec: number;
  max_duration_sec: number | null;
}

/** A new monitor is `new`: it cannot go down before its first ping. */
export async function createMonitor(deps: Pick<Deps, 'db' | 'clock' | 'config'>, workspaceId: string, body: unknown, actor?: Actor): Promise<MonitorRow> {
  const input = validateMonitor<MonitorInput>(createSchema, body, true);
  const now = deps.clock.now();
  const id = newId('mon');
  const token = newToken();
  const create = deps.db.monitor.create({
    data: {
      id,
      workspaceId,
      name: input.name,
      expectedIntervalSec: input.expected_interval_sec ?? null,
      scheduleCron: input.schedule?.cron ?? null,
      graceSec: input.grace_sec,
      maxDurationSec: input.max_duration_sec,
      state: 'new',
      pingToken: sealPingToken(deps.config.secretsEncryptionKey, { id, workspaceId }, token),
      pingTokenHash: hashToken(token),
      stateSince: now,
      createdAt: now,
      updatedAt: now,
    },
  });
  return withAudit(deps.db, create, actor, { action: 'monitor.created', targetType: 'monitor', targetId: id, changedFields: fieldsOf(body) });
}

/**
 * Changes name, schedule, grace or max duration. An `up` monitor's deadline moves with them,
 * from the start of its current window; if that is already past, the next sweep takes it down.
 */
export async function updateMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string, body: unknown, actor?: Actor): Promise<MonitorRow> {
  const patch = validateMonitor<Partial<MonitorInput>>(patchSchema, body, false);
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM monitors WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    const current = await findMonitor(tx, workspaceId, id);
    const schedule =
      patch.schedule !== undefined
        ? { expectedIntervalSec: null, scheduleCron: patch.schedule.cron }
        : patch.expected_interval_sec !== undefined
          ? { expectedIntervalSec: patch.expected_interval_sec, scheduleCron: null }
          : { expectedIntervalSec: current.expectedIntervalSec, scheduleCron: current.scheduleCron };
    const graceSec = patch.grace_sec ?? current.graceSec;
    const maxDurationSec = patch.max_duration_sec !== undefined ? patch.max_duration_sec : current.maxDurationSec;
    const windowStart = current.windowStartAt ?? current.lastPingAt;
    const nextExpectedAt = current.state === 'up' && windowStart ? nextExpectedAfter(schedule, windowStart) : current.nextExpectedAt;
    const nextDueAt = current.state === 'up' && nextExpectedAt ? downDeadline(nextExpectedAt, graceSec, { startedAt: current.runStartedAt, maxDurationSec }) : current.nextDueAt;
    await writeAudit(tx, actor, { action: 'monitor.updated', targetType: 'monitor', targetId: current.id, changedFields: fieldsOf(body) });
    return tx.monitor.update({
      where: { id: current.id },
      data: { name: patch.name ?? current.name, ...schedule, graceSec, maxDurationSec, nextExpectedAt, nextDueAt, updatedAt: now },
    });
  });
}
