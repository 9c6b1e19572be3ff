import { aCronJob, aWorkflow, approvalStep, httpStep, waitStep } from '../../test/bodies.js';
import { validate } from '../validation/validate.js';
import { jobSchema, type JobInput } from './job-schema.js';
import { summarizeJob } from './job-summary.js';

const valid = (body: unknown) => validate<JobInput>(jobSchema, body, { context: { now: new Date('2030-01-01T00:00:00Z') } });

it('keeps the URL, method and timeout of a request, and nothing of its body, headers or checks', () => {
  const input = valid(
    aCronJob({
      request: {
        url: 'https://example.com/hook',
        method: 'POST',
        headers: { 'X-Big': 'x'.repeat(1000) },
        body: { big: 'y'.repeat(100_000) },
        timeout_seconds: 12,
        response_matcher: { success_pattern: 'ok' },
        response_assertions: { status: [{ op: 'eq', value: 200 }] },
        response_output_template: { id: '$.id' },
      },
    }),
  );
  expect(summarizeJob(input)).toEqual({ request: { url: 'https://example.com/hook', method: 'POST', timeout_seconds: 12 } });
});

it('keeps each step id and type, and the URL and method of http steps', () => {
  const input = valid(
    aWorkflow([
      httpStep('call', 'https://example.com/a', { method: 'PUT', body_template: { big: 'z'.repeat(10_000) } }),
      waitStep('wait'),
      approvalStep('ok', 'm'.repeat(4000)),
    ]),
  );
  expect(summarizeJob(input)).toEqual({
    steps: [
      { id: 'call', type: 'http', url: 'https://example.com/a', method: 'PUT' },
      { id: 'wait', type: 'wait_for_webhook' },
      { id: 'ok', type: 'approval' },
    ],
  });
});
