import { aRecurringJob, aWorkflow, httpStep } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// GET /v1/jobs/:id/stats (docs/EXECUTIONS.md, "Statistics"): counted from the rollup that the
// recording of each execution's end keeps, for request jobs and step-driven runs alike.
const f = useWorkflowFixture();

/** Runs the job now `n` times, one after the other, each to its end. */
async function runs(jobId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await f.until(await f.runNow(jobId), 'succeeded', 'failed');
}

describe('GET /v1/jobs/:id/stats', () => {
  it('counts executions as they end: successes, failures, the rate, percentiles and the current hour', async () => {
    let calls = 0;
    // The third call fails (a 400 is not retried).
    f.target.handle((_req, res) => {
      calls += 1;
      res.statusCode = calls === 3 ? 400 : 200;
      res.end('ok');
    });
    const job = await f.createJob(aRecurringJob({ request: { url: `${f.target.url}/run` } }));
    const empty = await f.get(`/v1/jobs/${job.id}/stats`);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ window: '24h', executions: 0, succeeded: 0, failed: 0, success_rate: null, duration_ms: { p50: null, p95: null, p99: null } });
    expect(empty.body.buckets).toHaveLength(24);

    await runs(job.id, 4);
    const res = await f.get(`/v1/jobs/${job.id}/stats`);
    expect(res.body).toMatchObject({ window: '24h', executions: 4, succeeded: 3, failed: 1, success_rate: 0.75 });
    expect(res.body.duration_ms.p50).toEqual(expect.any(Number));
    const current = res.body.buckets[23];
    expect(current.start).toBe(new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString());
    expect(current).toMatchObject({ executions: 4, failed: 1, p50_ms: expect.any(Number), p95_ms: expect.any(Number) });

    const month = await f.get(`/v1/jobs/${job.id}/stats?window=30d`);
    expect(month.body).toMatchObject({ window: '30d', executions: 4, failed: 1 });
    expect(month.body.buckets).toHaveLength(30);
    expect(month.body.buckets[29]).toMatchObject({ executions: 4, failed: 1 });
  });

  it('counts the runs of a step-driven job', async () => {
    f.target.handle((_req, res) => void res.end('{}'));
    const job = await f.createJob(aWorkflow([httpStep('one', `${f.target.url}/one`), httpStep('two', `${f.target.url}/two`)]));
    await runs(job.id, 2);
    const res = await f.get(`/v1/jobs/${job.id}/stats?window=7d`);
    expect(res.body).toMatchObject({ window: '7d', executions: 2, succeeded: 2, failed: 0, success_rate: 1 });
    expect(res.body.buckets).toHaveLength(7);
  });

  it('refuses an unknown window, and a job of another workspace or none is not found', async () => {
    const job = await f.createJob(aRecurringJob({ request: { url: `${f.target.url}/run` } }));
    const bad = await f.get(`/v1/jobs/${job.id}/stats?window=1y`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect((await f.get('/v1/jobs/job_doesnotexist/stats')).status).toBe(404);
  });
});
