import Joi from 'joi';
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
  expected_interval_sec: fields.expected_interval_sec.when('schedule', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': 'cannot be given with schedule: a monitor has an interval or a cron schedule, not both' }),
    otherwise: Joi.required().messages({ 'any.required': 'is required unless schedule is given' }),
  }),
  schedule: fields.schedule,
  grace_sec: fields.grace_sec.default(0),
  max_duration_sec: fields.max_duration_sec.default(null),
});
/** Giving an interval replaces a cron schedule and the other way round; both at once is a 400. */
export const patchSchema = Joi.object(fields)
  .min(1)
  .oxor('expected_interval_sec', 'schedule')
  .messages({ 'object.min': 'a PATCH must change at least one field', 'object.oxor': 'must have either expected_interval_sec or schedule, not both' });

interface MonitorInput {
  name: string;
  expected_interval_sec?: number;
  schedule?: { cron: string };
  grace_sec: number;
  max_duration_sec: number | null;
}

/** A new monitor is `new`: it cannot go down before its first ping. */
export async function createMonitor(deps: Pick<Deps, 'db' | 'clock' | 'config'>, workspaceId: string, body: unknown): Promise<MonitorRow> {
  const input = validate<MonitorInput>(createSchema, body);
  const now = deps.clock.now();
  const id = newId('mon');
  const token = newToken();
  return deps.db.monitor.create({
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
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * Changes name, schedule, grace or max duration. An `up` monitor's deadline moves with them,
 * from the start of its current window; if that is already past, the next sweep takes it down.
 */
export async function updateMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string, body: unknown): Promise<MonitorRow> {
  const patch = validate<Partial<MonitorInput>>(patchSchema, body);
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
    return tx.monitor.update({
      where: { id: current.id },
      data: { name: patch.name ?? current.name, ...schedule, graceSec, maxDurationSec, nextExpectedAt, nextDueAt, updatedAt: now },
    });
  });
}
