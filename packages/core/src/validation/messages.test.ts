import Joi from 'joi';
import { MESSAGES } from './messages.js';
import { validate } from './validate.js';
import { AppError } from '../errors/app-error.js';

// The types the service's schemas are built from.
const TYPES = ['any', 'string', 'number', 'boolean', 'array', 'object', 'alternatives', 'date'] as const;

const codesOf = (type: (typeof TYPES)[number]): string[] =>
  Object.keys(((Joi[type] as () => Joi.Schema)() as unknown as { _definition: { messages: Record<string, unknown> } })._definition.messages);

function messageOf(schema: Joi.Schema, input: unknown): string {
  try {
    validate(schema, input);
  } catch (error) {
    return (error as AppError).message;
  }
  throw new Error('expected a validation error');
}

describe('validation messages', () => {
  it.each(TYPES)('has a message of its own for every error code of Joi.%s()', (type) => {
    expect(codesOf(type).filter((code) => !(code in MESSAGES))).toEqual([]);
  });

  it('never names the field in the message: the path does that', () => {
    expect(Object.values(MESSAGES).filter((m) => m.includes('#label') || m.includes('Label'))).toEqual([]);
  });

  it.each([
    [Joi.object({ name: Joi.string() }), { name: 5 }, 'name: must be a string'],
    [Joi.object({ n: Joi.number().integer().max(300) }), { n: 2 ** 60 }, 'n: is out of range'],
    [Joi.object({ n: Joi.number().integer().min(1) }), { n: 0 }, 'n: must be at least 1'],
    [Joi.object({ s: Joi.string().max(3) }), { s: 'long' }, 's: must be at most 3 characters long'],
    [Joi.object({ s: Joi.string().min(1) }), { s: '' }, 's: must not be empty'],
    [Joi.object({ k: Joi.string().valid('a', 'b') }), { k: 'c' }, 'k: must be one of a, b'],
    [Joi.object({ k: Joi.string().valid('a') }), { k: 'c' }, 'k: must be a'],
    [Joi.object({ a: Joi.array().max(1) }), { a: [1, 2] }, 'a: must have at most 1 item'],
    [Joi.object({ a: Joi.array().min(2) }), { a: [1] }, 'a: must have at least 2 items'],
    [Joi.object({ u: Joi.string().uri({ scheme: ['http', 'https'] }) }), { u: 'ftp://x' }, 'u: must be an absolute URL with the scheme http|https'],
    [Joi.object({}), { extra: 1 }, 'extra: is not a known field'],
    [Joi.object({ inner: Joi.object({ x: Joi.number().required() }) }), { inner: {} }, 'inner.x: is required'],
  ])('reads "<path>: <what is wrong>" (%#)', (schema, input, expected) => {
    expect(messageOf(schema, input)).toBe(expected);
  });

  it('keeps the messages a schema gives itself', () => {
    const schema = Joi.object({ id: Joi.string().pattern(/^a/).messages({ 'string.pattern.base': 'must start with a' }) });
    expect(messageOf(schema, { id: 'b' })).toBe('id: must start with a');
  });
});
