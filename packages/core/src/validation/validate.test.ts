import Joi from 'joi';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { validate } from './validate.js';

function detailsOf(schema: Joi.Schema, input: unknown, options = {}): ErrorDetail[] {
  try {
    validate(schema, input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details ?? [];
  }
  throw new Error('expected a validation error');
}

// A miniature of the job schema: `kind` chooses what `schedule` and `request` must be.
const job = Joi.object({
  kind: Joi.string().valid('cron', 'flow').required(),
  schedule: Joi.when('kind', { is: 'cron', then: Joi.object({ cron: Joi.string().required() }).required(), otherwise: Joi.forbidden() }),
  request: Joi.when('kind', { is: Joi.valid('cron'), then: Joi.object().required(), otherwise: Joi.forbidden() }),
  steps: Joi.when('kind', { is: Joi.valid('flow'), then: Joi.array().required(), otherwise: Joi.forbidden() }),
  name: Joi.string().required(),
});

// Steps whose `type` chooses the rest, as a workflow's steps do.
const step = Joi.alternatives().conditional('.type', {
  switch: [
    { is: 'http', then: Joi.object({ id: Joi.string().required(), type: Joi.string(), url: Joi.string().required() }) },
    { is: 'wait', then: Joi.object({ id: Joi.string().required(), type: Joi.string(), timeout: Joi.number() }) },
  ],
  otherwise: Joi.object({ id: Joi.string().required(), type: Joi.string().valid('http', 'wait').required() }).unknown(true),
});
const steps = Joi.object({ steps: Joi.array().items(step) });

describe('validate', () => {
  it('reports a wrong kind alone, not the fields that kind would have needed or refused', () => {
    expect(detailsOf(job, { kind: 'hourly', name: 'n', request: {}, schedule: { cron: 'x' } })).toEqual([
      { path: 'kind', message: 'must be one of cron, flow' },
    ]);
  });

  it('reports a missing kind alone, even though what one kind needs is there', () => {
    expect(detailsOf(job, { name: 'n', request: {} })).toEqual([{ path: 'kind', message: 'is required' }]);
  });

  it('still reports fields that do not depend on the wrong kind', () => {
    expect(detailsOf(job, { kind: 'hourly', request: {} }).map((d) => d.path)).toEqual(['kind', 'name']);
  });

  it('reports what a right kind needs', () => {
    expect(detailsOf(job, { kind: 'cron', name: 'n', schedule: {}, steps: [] })).toEqual([
      { path: 'schedule.cron', message: 'is required' },
      { path: 'request', message: 'is required' },
      { path: 'steps', message: 'is not allowed' },
    ]);
  });

  it("reports a step's wrong type, and a missing id, but not the fields of a type it does not have", () => {
    expect(detailsOf(steps, { steps: [{ id: 'a', type: 'http' }, { type: 'nope', url: 5 }] })).toEqual([
      { path: 'steps[0].url', message: 'is required' },
      { path: 'steps[1].id', message: 'is required' },
      { path: 'steps[1].type', message: 'must be one of http, wait' },
    ]);
  });

  it('reports a NUL character at its path, in a value or in a key, with the other problems', () => {
    const schema = Joi.object({ name: Joi.string(), body: Joi.any(), n: Joi.number() });
    expect(detailsOf(schema, { name: 'a\u0000b', body: { list: ['ok', { 'k\u0000': 1 }] }, n: 'x' })).toEqual(
      expect.arrayContaining([
        { path: 'n', message: 'must be a number' },
        { path: 'name', message: 'must not contain a NUL character' },
        { path: 'body.list[1]', message: 'must not contain a NUL character' },
      ]),
    );
  });

  it('puts a prefix in front of every path, and names a missing body', () => {
    expect(detailsOf(Joi.object({ url: Joi.string().required() }), {}, { prefix: 'config' })).toEqual([{ path: 'config.url', message: 'is required' }]);
    expect(detailsOf(Joi.object(), undefined)).toEqual([{ path: '(body)', message: 'is required' }]);
  });

  it('joins the problems into the message as "<path>: <what is wrong>"', () => {
    expect(() => validate(job, { kind: 'cron', name: 5, schedule: { cron: 'c' }, request: {} })).toThrow('name: must be a string');
  });
});
