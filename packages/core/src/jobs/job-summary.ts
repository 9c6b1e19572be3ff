import type { RequestSummary, StepSummary } from '@cronsvc/contracts';
import type { JobInput } from './job-schema.js';

/** What a job's list item shows of its request or steps (docs/API.md, "Lists"), stored with the job as `summary`. */
export interface JobSummaryFields {
  request?: RequestSummary;
  steps?: StepSummary[];
}

/**
 * The parts of a request or of steps that identify them and stay small whatever the job holds:
 * the URL (at most 2,048 characters), the method and the timeout; of a step, its id and type and,
 * for an http step, its URL and method. Bodies, headers, matchers, assertions, templates and
 * messages are left to GET /v1/jobs/:id. A pure function: create and PATCH store its result.
 */
export function summarizeJob(input: Pick<JobInput, 'request' | 'steps'>): JobSummaryFields {
  const out: JobSummaryFields = {};
  if (input.request) out.request = { url: input.request.url, method: input.request.method, timeout_seconds: input.request.timeout_seconds };
  if (input.steps) {
    out.steps = input.steps.map((step) => (step.type === 'http' ? { id: step.id, type: step.type, url: step.url, method: step.method } : { id: step.id, type: step.type }));
  }
  return out;
}
