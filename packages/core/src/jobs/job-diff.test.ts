import { changedFields, diffJobDocuments, normalJob, sameJson } from './job-diff.js';

const base = {
  key: 'billing.nightly',
  name: 'nightly invoices',
  kind: 'cron',
  schedule: { cron: '0 3 * * *' },
  request: { url: 'https://billing.example.com/run', headers: { 'X-A': '1', Authorization: 'Bearer {{secret.billing_token}}' }, body: { batch: { size: 50, dry: false } } },
  tags: ['billing', 'nightly'],
};

describe('diffJobDocuments', () => {
  it('finds no change between a job with its defaults written out and the same job without them', () => {
    const written = {
      ...base,
      state: 'active',
      request: { ...base.request, method: 'GET', timeout_seconds: 30, success_statuses: [200, 201, 202, 204] },
      retry_policy: { max_attempts: 3, retry_on_statuses: [429, 500, 502, 503, 504] },
      max_concurrent_executions: 0,
      overlap_policy: 'queue',
      catch_up_policy: 'one',
      jitter_seconds: 0,
      on_success_url: null,
      on_failure_url: null,
      notification_override: 'inherit',
    };
    expect(diffJobDocuments(written, base)).toEqual([]);
    expect(diffJobDocuments(base, written)).toEqual([]);
  });

  it('treats "method": "GET" and no method as the same request', () => {
    expect(diffJobDocuments(base, { ...base, request: { ...base.request, method: 'GET' } })).toEqual([]);
    expect(diffJobDocuments(base, { ...base, request: { ...base.request, method: 'POST' } })).toEqual(['request']);
  });

  it('ignores the order of headers and of the keys of nested objects, not their values', () => {
    const reordered = { ...base, request: { body: { batch: { dry: false, size: 50 } }, headers: { Authorization: 'Bearer {{secret.billing_token}}', 'X-A': '1' }, url: base.request.url } };
    expect(diffJobDocuments(base, reordered)).toEqual([]);
    const deeper = { ...base, request: { ...base.request, body: { batch: { size: 51, dry: false } } } };
    expect(diffJobDocuments(base, deeper)).toEqual(['request']);
  });

  it('ignores the fields the service sets, so a copy of GET /v1/jobs/:id is the same job', () => {
    const shown = { ...base, id: 'job_1', next_run_at: '2026-12-01T03:00:00.000Z', created_at: 'x', updated_at: 'y', idempotency_key: null };
    expect(diffJobDocuments(shown, base)).toEqual([]);
  });

  it('compares tags as a set', () => {
    expect(diffJobDocuments(base, { ...base, tags: ['nightly', 'billing', 'billing'] })).toEqual([]);
    expect(diffJobDocuments(base, { ...base, tags: ['billing'] })).toEqual(['tags']);
  });

  it('names every top-level field that changes, in a fixed order', () => {
    const changed = { ...base, name: 'renamed', schedule: { cron: '0 4 * * *' }, retry_policy: { max_attempts: 5 }, tags: [] };
    expect(diffJobDocuments(base, changed)).toEqual(['name', 'schedule', 'retry_policy', 'tags']);
  });

  it('fills the concurrency cap by kind', () => {
    const workflow = { name: 'w', kind: 'workflow', schedule: { cron: '* * * * *' }, steps: [{ id: 'a', type: 'http', url: 'https://example.com/' }] };
    expect(normalJob(workflow).max_concurrent_executions).toBe(1);
    expect(diffJobDocuments(workflow, { ...workflow, max_concurrent_executions: 1 })).toEqual([]);
  });

  it('does not take a passed run_at for a change', () => {
    const scheduled = { name: 's', kind: 'scheduled', schedule: { run_at: '2001-01-01T00:00:00Z' }, request: { url: 'https://example.com/' } };
    expect(diffJobDocuments(scheduled, scheduled)).toEqual([]);
  });

  it('rejects an invalid document with the path of the problem under the given prefix', () => {
    expect(() => normalJob({ ...base, request: { url: 'nope' } }, { prefix: 'jobs[3]' })).toThrow(/jobs\[3\]\.request\.url/);
  });
});

describe('changedFields and sameJson', () => {
  it('compares arrays in order and objects by their keys', () => {
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 })).toBe(true);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(changedFields({ name: 'a', tags: [] }, { name: 'a', tags: [] })).toEqual([]);
  });
});
