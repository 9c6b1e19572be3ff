import Joi from 'joi';

export const MAX_SECRET_VALUE_BYTES = 64 * 1024;

/** A secret's value: a string of at most 64 KiB of UTF-8 (joi refuses an empty string by default). */
export const secretValueSchema = Joi.string().max(MAX_SECRET_VALUE_BYTES, 'utf8').messages({
  // Joi's default for max speaks of characters; the limit is on bytes.
  'string.max': 'must be at most 65536 bytes (64 KiB) of UTF-8',
});
