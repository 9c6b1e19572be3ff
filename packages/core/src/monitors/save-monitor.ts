import Joi from 'joi';
import { newId, newToken } from '../ids/ids.js';
import type { Deps } from '../deps/deps.js';
import { validate } from '../validation/validate.js';
import { hashToken } from '../ids/ids.js';
import { findMonitor, type MonitorRow } from './monitor-store.js';
import { sealPingToken } from './ping-token.js';

const MAX_SECONDS = 31_536_000;

const fields = {
  name: Joi.string().trim().min(1).max(200),
  expected_interval_sec: Joi.number().integer().min(1).max(MAX_SECONDS),
  grace_sec: Joi.number().integer().min(0).max(MAX_SECONDS),
};
export const createSchema = Joi.object({
  name: fields.name.required(),
  expected_interval_sec: fields.expected_interval_sec.required(),
  grace_sec: fields.grace_sec.default(0),
});
export const patchSchema = Joi.object(fields).min(1).messages({ 'object.min': 'a PATCH must change at least one field' });

interface MonitorInput {
  name: string;
  expected_interval_sec: number;
  grace_sec: number;
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
      expectedIntervalSec: input.expected_interval_sec,
      graceSec: input.grace_sec,
      state: 'new',
      pingToken: sealPingToken(deps.config.secretsEncryptionKey, { id, workspaceId }, token),
      pingTokenHash: hashToken(token),
      createdAt: now,
      updatedAt: now,
    },
  });
}

/**
 * Changes name, interval or grace. An `up` monitor's deadline moves with them, from its last
 * ping; if that is already past, the next sweep takes it down.
 */
export async function updateMonitor(deps: Pick<Deps, 'db' | 'clock'>, workspaceId: string, id: string, body: unknown): Promise<MonitorRow> {
  const patch = validate<Partial<MonitorInput>>(patchSchema, body);
  const now = deps.clock.now();
  const rows = await deps.db.$queryRaw<{ id: string }[]>`
    UPDATE monitors SET
      name = COALESCE(${patch.name ?? null}::text, name),
      expected_interval_sec = COALESCE(${patch.expected_interval_sec ?? null}::int, expected_interval_sec),
      grace_sec = COALESCE(${patch.grace_sec ?? null}::int, grace_sec),
      next_due_at = CASE WHEN state = 'up' THEN last_ping_at + make_interval(secs =>
        COALESCE(${patch.expected_interval_sec ?? null}::int, expected_interval_sec) + COALESCE(${patch.grace_sec ?? null}::int, grace_sec)) END,
      updated_at = ${now}
    WHERE id = ${id} AND workspace_id = ${workspaceId}
    RETURNING id`;
  return findMonitor(deps.db, workspaceId, rows[0]?.id ?? id);
}
