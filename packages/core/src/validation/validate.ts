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

/** Validates `input` against `schema`, collecting every problem, and returns the value with defaults. */
export function validate<T>(schema: Joi.Schema, input: unknown, options: { context?: Record<string, unknown> } = {}): T {
  // A request with no body reaches here as undefined; that is a missing body, not an empty one.
  const { value, error } = schema.required().validate(input, {
    abortEarly: false,
    convert: false,
    errors: { wrap: { label: false } },
    context: options.context,
  });
  if (error) throw AppError.validation(joiDetails(error));
  return value as T;
}
