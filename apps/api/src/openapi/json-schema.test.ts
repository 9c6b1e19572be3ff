import Joi from 'joi';
import { defaultsInWords, jsonSchema, tidy } from './json-schema.js';

describe('jsonSchema', () => {
  it('writes any value as a schema without a type, not as a list of every type', () => {
    expect(jsonSchema(Joi.object({ body: Joi.any() }))).toEqual({ type: 'object', properties: { body: {} }, additionalProperties: false });
  });

  it('leaves forbidden fields out, and a condition on another field as its one allowed branch', () => {
    const schema = Joi.object({
      kind: Joi.string().valid('a', 'b'),
      extra: Joi.when('kind', { is: 'a', then: Joi.number(), otherwise: Joi.forbidden() }),
      gone: Joi.forbidden(),
    });
    expect(jsonSchema(schema).properties).toEqual({ kind: { type: 'string', enum: ['a', 'b'] }, extra: { type: 'number' } });
  });

  it('drops repeated members of an anyOf', () => {
    const same = Joi.object({ cron: Joi.string().required() });
    const schema = Joi.object({ kind: Joi.string(), schedule: Joi.when('kind', { switch: [{ is: 'a', then: same }, { is: 'b', then: same }, { is: 'c', then: Joi.object({ n: Joi.number() }) }] }) });
    expect((jsonSchema(schema).properties as Record<string, { anyOf: unknown[] }>).schedule.anyOf).toHaveLength(2);
  });

  it('writes the maps joi checks by key schema with their values, and an object without keys as a map of anything', () => {
    const schema = Joi.object({
      headers: Joi.object().pattern(Joi.string().valid('host'), Joi.forbidden()).pattern(Joi.string(), Joi.string().max(10)),
      anything: Joi.object(),
      extract: Joi.object().pattern(/^[a-z]+$/, Joi.string()),
    });
    expect(jsonSchema(schema).properties).toEqual({
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 10 } },
      anything: { type: 'object', additionalProperties: {} },
      extract: { type: 'object', additionalProperties: false, patternProperties: { '^[a-z]+$': { type: 'string' } } },
    });
  });

  it('writes alternatives that allow null with null as a member', () => {
    const schema = Joi.alternatives(Joi.array(), Joi.string()).allow(null);
    expect(jsonSchema(schema)).toEqual({ anyOf: [{ type: 'array', items: {} }, { type: 'string' }, { type: 'null' }] });
  });

  it("writes joi's xor as a oneOf of objects, each with one of the two fields", () => {
    const schema = Joi.object({ ids: Joi.array().items(Joi.string()), job_id: Joi.string() }).xor('ids', 'job_id');
    expect(jsonSchema(schema)).toEqual({
      type: 'object',
      oneOf: [
        { type: 'object', properties: { ids: { type: 'array', items: { type: 'string' } } }, required: ['ids'], additionalProperties: false },
        { type: 'object', properties: { job_id: { type: 'string' } }, required: ['job_id'], additionalProperties: false },
      ],
    });
  });
});

describe('tidy', () => {
  it('keeps a lone anyOf member beside other keywords, and merges it when there are none', () => {
    expect(tidy({ anyOf: [{ type: 'string' }, { not: {} }] })).toEqual({ type: 'string' });
    expect(tidy({ type: 'object', anyOf: [{ required: ['a'] }] })).toEqual({ type: 'object', anyOf: [{ required: ['a'] }] });
  });
});

describe('defaultsInWords', () => {
  it('says each default in the description, at any depth, and drops the marker of inner defaults', () => {
    const schema = {
      type: 'object',
      default: { special: 'deep' },
      properties: { method: { type: 'string', default: 'GET' }, list: { type: 'array', items: { anyOf: [{ type: 'integer', description: 'A status.', default: 200 }] } } },
    };
    expect(defaultsInWords(schema)).toEqual({
      type: 'object',
      properties: {
        method: { type: 'string', description: 'Default: `"GET"`.' },
        list: { type: 'array', items: { anyOf: [{ type: 'integer', description: 'A status. Default: `200`.' }] } },
      },
    });
  });
});
