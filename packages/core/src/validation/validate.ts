import type Joi from 'joi';
import { AppError, type ErrorDetail } from '../errors/app-error.js';

function pathOf(path: (string | number)[]): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

export function joiDetails(error: Joi.ValidationError, prefix = ''): ErrorDetail[] {
  return error.details.map((d) => {
    const path = pathOf(d.path);
    return { path: prefix && path ? `${prefix}.${path}` : prefix || path || '(body)', message: d.message };
  });
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

/** Validates `input` against `schema`, collecting every problem, and returns the value with defaults. */
export function validate<T>(schema: Joi.Schema, input: unknown, options: { context?: Record<string, unknown> } = {}): T {
  const { value, error } = required(schema).validate(input, {
    abortEarly: false,
    convert: false,
    errors: { wrap: { label: false } },
    context: options.context,
  });
  if (error) throw AppError.validation(joiDetails(error));
  return value as T;
}
