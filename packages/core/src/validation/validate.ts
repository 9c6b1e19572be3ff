import type Joi from 'joi';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { withoutDependentProblems } from './dependent-fields.js';
import { MESSAGE_PREFERENCES } from './messages.js';
import { holdsUnstorableText, unstorablePaths } from './storable-text.js';

function pathOf(path: (string | number)[]): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function detailOf(path: (string | number)[], message: string, prefix: string): ErrorDetail {
  const dotted = pathOf(path);
  return { path: prefix && dotted ? `${prefix}.${dotted}` : prefix || dotted || '(body)', message };
}

// A request with no body reaches here as undefined; that is a missing body, not an empty one.
// Joi schemas are immutable, so .required() builds a new one: built once per schema, not per call.
const requiredSchemas = new WeakMap<Joi.Schema, Joi.Schema>();

function required(schema: Joi.Schema): Joi.Schema {
  let found = requiredSchemas.get(schema);
  if (!found) {
    found = schema.required();
    requiredSchemas.set(schema, found);
  }
  return found;
}

export interface ValidateOptions {
  /** Values the schema's rules read, such as the time a run_at must lie after. */
  context?: Record<string, unknown>;
  /** Put in front of every problem's path: `config` for a channel's config. */
  prefix?: string;
}

/**
 * Validates `input` against `schema` and returns the value with defaults, or throws one
 * validation_failed AppError with every problem as `<path>: <what is wrong>`. Only fields that
 * are wrong are named: a field whose rules depend on a wrong field is not reported, and a string
 * holding what PostgreSQL cannot store (NUL, an unpaired surrogate) is reported at its path
 * rather than failing later.
 */
export function validate<T>(schema: Joi.Schema, input: unknown, options: ValidateOptions = {}): T {
  const settings = { abortEarly: false, convert: false, context: options.context };
  const first = required(schema).validate(input, settings);
  // The message table is applied only when there is something to say: Joi merges and compiles
  // it on every call it is given to, which cost several times the validation itself on the
  // hot path (POST /v1/jobs), where bodies are valid.
  const { value, error } = first.error ? required(schema).validate(input, { ...settings, ...MESSAGE_PREFERENCES }) : first;
  const prefix = options.prefix ?? '';
  const problems = error ? withoutDependentProblems(schema, error.details).map((d) => detailOf(d.path, d.message, prefix)) : [];
  if (holdsUnstorableText(input)) {
    for (const { path, problem } of unstorablePaths(input)) {
      const detail = detailOf(path, problem, prefix);
      // A field reported already, or a key of this object reported at its own path, is enough.
      const within = (p: ErrorDetail) => path.length === 0 || p.path === detail.path || p.path.startsWith(`${detail.path}.`) || p.path.startsWith(`${detail.path}[`);
      if (!problems.some(within)) problems.push(detail);
    }
  }
  if (problems.length > 0) throw AppError.validation(problems);
  return value as T;
}
