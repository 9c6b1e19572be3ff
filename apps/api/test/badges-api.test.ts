import request from 'supertest';
import { aMonitorBody, aRecurringJob } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// Badges through HTTP (docs/JOBS.md, "Badges"): public, unguessable, rotatable, cached under a
// minute, SVG or a shields.io endpoint object, and under the public rate limit.
const LIMIT = 12;
const f = useWorkflowFixture({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

const pathOf = (url: string) => new URL(url).pathname;
const badge = (url: string) => request(f.app).get(pathOf(url));
const shields = (url: string) => request(f.app).get(pathOf(url).replace(/\.svg$/, '.json'));

describe('badges', () => {
  it("shows a job's name and state as SVG and as shields.io JSON, cached under a minute, without an API token", async () => {
    let fail = false;
    f.target.handle((_req, res) => {
      res.statusCode = fail ? 500 : 200;
      res.end('ok');
    });
    const job = await f.createJob(aRecurringJob({ name: 'nightly <report>', request: { url: `${f.target.url}/run` }, retry_policy: { max_attempts: 1 } }));
    expect(job.badge_url).toMatch(/^http.*\/v1\/badges\/bdg_[0-9a-f]{64}\.svg$/);

    const fresh = await badge(job.badge_url);
    expect(fresh.status).toBe(200);
    expect(fresh.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const maxAge = Number(/max-age=(\d+)/.exec(fresh.headers['cache-control'])?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThan(60);
    expect(fresh.body.toString()).toContain('aria-label="nightly &#60;report&#62;: new"');
    expect(fresh.body.toString()).not.toContain('<report>');
    expect((await shields(job.badge_url)).body).toEqual({ schemaVersion: 1, label: 'nightly <report>', message: 'new', color: expect.stringMatching(/^[0-9a-f]{6}$/) });

    await f.until(await f.runNow(job.id), 'succeeded');
    expect((await shields(job.badge_url)).body.message).toBe('passing');
    fail = true;
    await f.until(await f.runNow(job.id), 'failed');
    expect((await shields(job.badge_url)).body.message).toBe('failing');
    await f.post(`/v1/jobs/${job.id}/pause`).expect(200);
    expect((await badge(job.badge_url)).body.toString()).toContain(': paused"');
  });

  it("shows a monitor's state, and a rotated badge answers at its new URL only", async () => {
    const monitor = (await f.post('/v1/monitors', aMonitorBody({ name: 'backup' })).expect(201)).body;
    expect((await shields(monitor.badge_url)).body).toMatchObject({ label: 'backup', message: 'new' });
    await request(f.app).get(pathOf(monitor.ping_url)).expect(200);
    expect((await shields(monitor.badge_url)).body.message).toBe('up');

    const rotated = (await f.post(`/v1/monitors/${monitor.id}/badge/rotate`).expect(200)).body;
    expect(rotated.badge_url).not.toBe(monitor.badge_url);
    expect((await badge(monitor.badge_url)).status).toBe(404);
    expect((await shields(rotated.badge_url)).body.message).toBe('up');

    const job = await f.createJob(aRecurringJob({ request: { url: `${f.target.url}/run` } }));
    const newJob = (await f.post(`/v1/jobs/${job.id}/badge/rotate`).expect(200)).body;
    expect(newJob.badge_url).not.toBe(job.badge_url);
    expect((await badge(job.badge_url)).status).toBe(404);
    expect((await badge(newJob.badge_url)).status).toBe(200);
    expect((await f.post('/v1/jobs/job_nope/badge/rotate')).status).toBe(404);
  });

  it('answers 404 to an unknown token or extension, and 429 past the public rate limit', async () => {
    expect((await request(f.app).get(`/v1/badges/bdg_${'0'.repeat(64)}.svg`)).status).toBe(404);
    const job = await f.createJob(aRecurringJob({ request: { url: `${f.target.url}/run` } }));
    expect((await request(f.app).get(pathOf(job.badge_url).replace(/\.svg$/, '.png'))).status).toBe(404);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await badge(job.badge_url)).status);
    expect(statuses).toContain(429);
  });
});
