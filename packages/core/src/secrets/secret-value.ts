import Joi from 'joi';

export const MAX_SECRET_VALUE_BYTES = 64 * 1024;

/**
 * The secret values one job's request may reference, in total (UTF-8 bytes, each distinct secret
 * counted once): one secret of the largest size, or many small ones. Every attempt builds a
 * matcher from these values (in three echoed forms) to mask them, so this bounds its cost.
 */
export const MAX_JOB_SECRET_BYTES = 64 * 1024;

/** What a job referencing secrets of these sizes is told when they add up to more than MAX_JOB_SECRET_BYTES, or null. */
export function jobSecretBytesProblem(sizes: Map<string, number>): string | null {
  const total = [...sizes.values()].reduce((sum, n) => sum + n, 0);
  if (total <= MAX_JOB_SECRET_BYTES) return null;
  const list = [...sizes].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} (${n} bytes)`).join(', ');
  return `the secrets referenced add up to ${total} bytes, more than the ${MAX_JOB_SECRET_BYTES} bytes (64 KiB) one job may use: ${list}`;
}

/** A secret's value: a string of at most 64 KiB of UTF-8 (joi refuses an empty string by default). */
export const secretValueSchema = Joi.string().max(MAX_SECRET_VALUE_BYTES, 'utf8').messages({
  // Joi's default for max speaks of characters; the limit is on bytes.
  'string.max': 'must be at most 65536 bytes (64 KiB) of UTF-8',
});
