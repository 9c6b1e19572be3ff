import { AppError } from '../errors/app-error.js';

/**
 * Nesting limits for JSON. A value nested 200,000 levels deep parses (JSON.parse does not
 * recurse) but overflows the stack of everything that walks it afterwards (validation,
 * templating, JSON.stringify), so depth is measured without recursion and refused early.
 */

/** The deepest a JSON value stored in a job may nest (a request body, an assertion's value). */
export const MAX_JOB_JSON_DEPTH = 64;

/** The deepest any request body the API accepts may nest: a job wraps its values a few levels down. */
export const MAX_REQUEST_JSON_DEPTH = 100;

/** The answer to a request body nested deeper than MAX_REQUEST_JSON_DEPTH, on every endpoint alike. */
export function requestTooDeep(): AppError {
  const message = `request body must not be nested deeper than ${MAX_REQUEST_JSON_DEPTH} levels`;
  return new AppError('validation_failed', message, [{ path: '(body)', message }]);
}

/** Whether `value` nests deeper than `limit` levels (a scalar is 0 levels, `[]` and `{}` are 1). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth += 1) {
    const next: unknown[] = [];
    for (const node of level) {
      if (typeof node !== 'object' || node === null) continue;
      if (depth >= limit) return true;
      // One by one: spreading an array of 200,000 items as arguments overflows the stack.
      for (const child of Array.isArray(node) ? node : Object.values(node)) next.push(child);
    }
    level = next;
  }
  return false;
}

/**
 * Whether JSON text nests deeper than `limit` levels, read byte by byte before it is parsed
 * (brackets inside strings do not count). Text that is not JSON is left to the parser.
 */
export function textNestedDeeperThan(text: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const byte = text[i];
    if (inString) {
      if (byte === 0x5c) i += 1; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
}
