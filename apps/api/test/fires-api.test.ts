import request from 'supertest';
import { fireDueJobs, processRegistry } from '@cronsvc/core';
import { anOutageOf, aOneTimeJob, aRecurringJob, aScheduledJob, aTriggerJob, holdAnswers, waitFor, waitStep } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

// The fire ledger through the API (docs/JOBS.md, "The fire ledger"): the scheduler's passes are
// run here (fireDueJobs) at the moments a test chooses, the executor runs in process.
const LATE_AFTER_S = 10;
const f = useWorkflowFixture({ env: { FIRE_LATE_AFTER_SECONDS: String(LATE_AFTER_S) } });
// Each test's jobs go with it, so a later test's scheduler pass fires nothing of an earlier one
// and the counters move by what the test itself did.
afterEach(() => f.ctx.runtime.db.job.deleteMany({ where: { workspaceId: f.workspaceId } }));

type Listed = { data: Record<string, any>[]; total: number; limit: number; offset: number };
const iso = (d: Date) => d.toISOString();
const schedulerPass = () => fireDueJobs(f.ctx.runtime, { lookaheadMs: 5_000 });
const everyMinute = (extra: Record<string, unknown> = {}) =>
  f.createJob(aRecurringJob({ name: 'every minute', schedule: { every_n_minutes: 1 }, request: { url: `${f.target.url}/run` }, ...extra }));

async function firesOf(jobId: string, query = ''): Promise<Listed> {
  const res = await f.get(`/v1/jobs/${jobId}/fires${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The job's ledger once `done` holds for it. */
const firesWhen = (jobId: string, done: (l: Listed) => boolean, what: string) =>
  waitFor(async () => {
    const listed = await firesOf(jobId);
    return done(listed) ? listed : undefined;
  }, { what });

/** The job's next slot moved to `inMs` from now, on its grid. */
async function nextSlotIn(jobId: string, inMs: number): Promise<Date> {
  const slot = new Date(Date.now() + inMs);
  await f.ctx.runtime.db.job.update({ where: { id: jobId }, data: { nextRunAt: slot, scheduleAnchor: new Date(slot.getTime() - 60_000) } });
  return slot;
}

async function firesCounted(outcome: string): Promise<number> {
  const metric = await processRegistry.getSingleMetric('cronsvc_fires_total')!.get();
  return metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('GET /v1/jobs/:id/fires', () => {
  it('lists a window missed while down as one caught_up fire and the other slots missed, linked to it, each slot once', async () => {
    const job = await everyMinute();
    const [missedBefore, caughtUpBefore] = [await firesCounted('missed'), await firesCounted('caught_up')];
    const slots = await anOutageOf(f.ctx.runtime, job.id, 3);
    await schedulerPass();
    const listed = await firesWhen(job.id, (l) => l.data.some((x) => x.outcome === 'caught_up'), 'the catch-up to send its request');
    expect(listed).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(listed.data.map((x) => x.scheduled_for)).toEqual(slots.map(iso).reverse());
    const [third, second, first] = listed.data;
    expect(first).toMatchObject({ scheduled_for: iso(slots[0]), due_at: iso(slots[0]), outcome: 'caught_up', reason: null });
    expect(first.execution_id).toMatch(/^exe_/);
    expect(first.lag_ms).toBe(new Date(first.fired_at).getTime() - slots[0].getTime());
    for (const [fire, slot] of [[second, slots[1]], [third, slots[2]]] as const) {
      expect(fire).toEqual({ scheduled_for: iso(slot), due_at: iso(slot), outcome: 'missed', execution_id: first.execution_id, fired_at: null, lag_ms: null, reason: null });
    }
    // Another pass finds nothing more to record, and only the catch-up ran.
    await schedulerPass();
    expect((await firesOf(job.id)).total).toBe(3);
    expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(1);
    expect(await firesCounted('missed')).toBe(missedBefore + 2);
    expect(await firesCounted('caught_up')).toBe(caughtUpBefore + 1);
  });

  it('records a window once, with one catch-up, when several schedulers pass at the same moment', async () => {
    const job = await everyMinute();
    await anOutageOf(f.ctx.runtime, job.id, 4);
    await Promise.all([schedulerPass(), schedulerPass(), schedulerPass()]);
    await schedulerPass();
    const listed = await firesOf(job.id);
    const outcomes = listed.data.map((x) => x.outcome);
    expect(outcomes.filter((o) => o === 'missed')).toHaveLength(3);
    expect(['pending', 'caught_up']).toContain(outcomes[3]);
    expect(new Set(listed.data.map((x) => x.scheduled_for)).size).toBe(4);
    expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(1);
  });

  it('shows a due slot the scheduler has not reached as pending without an execution, the state the readiness check watches', async () => {
    const job = await everyMinute();
    const slot = await nextSlotIn(job.id, -20_000);
    const waiting = await firesOf(job.id);
    expect(waiting.data).toEqual([{ scheduled_for: iso(slot), due_at: iso(slot), outcome: 'pending', execution_id: null, fired_at: null, lag_ms: null, reason: null }]);
    expect((await firesOf(job.id, '?outcome=pending')).total).toBe(1);
    expect((await firesOf(job.id, '?outcome=missed')).total).toBe(0);
    // Found 20 s late (more than FIRE_LATE_AFTER_SECONDS here): a window of one, its catch-up in its place.
    await schedulerPass();
    const listed = await firesOf(job.id);
    expect(listed.total).toBe(1);
    expect(listed.data[0]).toMatchObject({ scheduled_for: iso(slot), execution_id: expect.stringMatching(/^exe_/) });
  });

  it('leaves one_time jobs out of the ledger: they have no schedule', async () => {
    const once = await f.createJob(aOneTimeJob({ request: { url: `${f.target.url}/once` } }));
    await waitFor(async () => (await f.ctx.runtime.db.execution.count({ where: { jobId: once.id } })) === 1, { what: 'the one_time execution' });
    expect((await firesOf(once.id)).total).toBe(0);
    expect((await f.get(`/v1/fires?job_id=${once.id}`)).body.total).toBe(0);
  });

  it('records every slot of the window missed, and runs nothing, with catch_up_policy none', async () => {
    const job = await everyMinute({ catch_up_policy: 'none' });
    const slots = await anOutageOf(f.ctx.runtime, job.id, 2);
    await schedulerPass();
    const listed = await firesOf(job.id);
    expect(listed.data.map((x) => [x.scheduled_for, x.outcome, x.execution_id])).toEqual([
      [iso(slots[1]), 'missed', null],
      [iso(slots[0]), 'missed', null],
    ]);
    expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(0);
    expect((await f.get(`/v1/jobs/${job.id}`)).body.next_run_at).toBe(iso(new Date(slots[1].getTime() + 60_000)));
  });

  it('completes a scheduled job whose one slot was missed with catch_up_policy none, running nothing', async () => {
    const job = await f.createJob(aScheduledJob({ request: { url: `${f.target.url}/later` }, catch_up_policy: 'none' }));
    const slot = new Date(Date.now() - 5 * 60_000);
    await f.ctx.runtime.db.job.update({ where: { id: job.id }, data: { nextRunAt: slot } });
    await schedulerPass();
    expect((await firesOf(job.id)).data).toEqual([{ scheduled_for: iso(slot), due_at: iso(slot), outcome: 'missed', execution_id: null, fired_at: null, lag_ms: null, reason: null }]);
    expect((await f.get(`/v1/jobs/${job.id}`)).body).toMatchObject({ state: 'completed', next_run_at: null });
    expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(0);
  });

  it('never credits a slot to a run-now made just before it, nor lists the manual run', async () => {
    const job = await everyMinute();
    const slot = await nextSlotIn(job.id, 2_000);
    const firedBefore = await firesCounted('fired');
    const manual = await f.runNow(job.id);
    await f.until(manual, 'succeeded');
    expect((await firesOf(job.id)).data).toEqual([]);
    await schedulerPass();
    const listed = await firesWhen(job.id, (l) => l.data[0]?.outcome === 'fired', 'the slot to fire');
    expect(listed.total).toBe(1);
    expect(listed.data[0]).toMatchObject({ scheduled_for: iso(slot), due_at: iso(slot), outcome: 'fired', reason: null });
    expect(listed.data[0].execution_id).not.toBe(manual);
    expect(listed.data[0].lag_ms).toBeLessThanOrEqual(LATE_AFTER_S * 1000);
    const exe = await f.execution(listed.data[0].execution_id);
    expect(exe).toMatchObject({ source: 'schedule', scheduled_for: iso(slot), started_at: listed.data[0].fired_at });
    // The manual run is not a fire: the counter moved by the slot's fire alone.
    expect(await firesCounted('fired')).toBe(firedBefore + 1);
  });

  it('shows a fire whose first request went out after FIRE_LATE_AFTER_SECONDS as late', async () => {
    const release = holdAnswers(f.target);
    const job = await everyMinute({ max_concurrent_executions: 1 });
    const manual = await f.runNow(job.id);
    await f.until(manual, 'running');
    const slot = await nextSlotIn(job.id, 1_000);
    await schedulerPass();
    // overlap_policy queue: the fire waits for the slot the manual run holds.
    await waitFor(() => Date.now() > slot.getTime() + LATE_AFTER_S * 1000 + 1_000, { what: 'the fire to be late', timeoutMs: 30_000, intervalMs: 250 });
    expect((await firesOf(job.id)).data.map((x) => x.outcome)).toEqual(['pending']);
    const lateBefore = await firesCounted('late');
    release();
    const listed = await firesWhen(job.id, (l) => l.data[0]?.outcome !== 'pending', 'the fire to send its request');
    expect(listed.data[0]).toMatchObject({ scheduled_for: iso(slot), outcome: 'late' });
    expect(await firesCounted('late')).toBe(lateBefore + 1);
    expect(listed.data[0].lag_ms).toBeGreaterThan(LATE_AFTER_S * 1000);
  });

  it('skips a fire whose job is at max_concurrent_executions at its due time with overlap_policy skip, and announces it', async () => {
    const release = holdAnswers(f.target);
    const job = await everyMinute({ max_concurrent_executions: 1, overlap_policy: 'skip' });
    const channel = await f.post('/v1/notification-channels', { name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com/in' } });
    expect((await f.post(`/v1/jobs/${job.id}/notification-rules`, { channel_id: channel.body.id, event: 'on_missed' })).status).toBe(201);
    const manual = await f.runNow(job.id);
    await f.until(manual, 'running');
    const skippedBefore = await firesCounted('skipped');
    const slot = await nextSlotIn(job.id, 1_000);
    await schedulerPass();
    const listed = await firesWhen(job.id, (l) => l.data[0]?.outcome === 'skipped', 'the fire to be skipped');
    expect(listed.data).toEqual([{ scheduled_for: iso(slot), due_at: iso(slot), outcome: 'skipped', execution_id: null, fired_at: null, lag_ms: null, reason: 'overlap' }]);
    release();
    await f.until(manual, 'succeeded');
    expect(await f.ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(1);
    expect(await firesCounted('skipped')).toBe(skippedBefore + 1);
    const events = await f.ctx.runtime.db.event.findMany({ where: { jobId: job.id } });
    expect(events.map((e) => [e.type, e.executionId, e.payload])).toEqual([
      ['fire.missed', null, { event: 'fire.missed', job: { id: job.id, name: 'every minute' }, fires: [{ scheduled_for: iso(slot), outcome: 'skipped', reason: 'overlap' }], timestamp: expect.any(String) }],
    ]);
  });

  it('keeps a jittered slot on its grid and due within jitter_seconds after it, and a pause cancels it', async () => {
    const job = await everyMinute({ jitter_seconds: 3600 });
    const slot = await nextSlotIn(job.id, 2_000);
    await schedulerPass();
    const [fire] = (await firesOf(job.id)).data;
    expect(fire).toMatchObject({ scheduled_for: iso(slot), outcome: 'pending', fired_at: null, lag_ms: null });
    const offset = new Date(fire.due_at).getTime() - slot.getTime();
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThanOrEqual(3_600_000);
    const exe = await f.ctx.runtime.db.execution.findUniqueOrThrow({ where: { id: fire.execution_id } });
    expect(exe.nextAttemptAt.toISOString()).toBe(fire.due_at);
    // A slot is due at its jittered time: until then a pause drops it, as any fire not yet due.
    if (offset > 5_000) {
      expect((await f.post(`/v1/jobs/${job.id}/pause`)).status).toBe(200);
      expect((await firesOf(job.id)).data).toEqual([]);
    }
  });

  it('filters by outcome and by scheduled_for (both ends inclusive), and pages', async () => {
    const job = await everyMinute({ catch_up_policy: 'none' });
    const slots = await anOutageOf(f.ctx.runtime, job.id, 4);
    await schedulerPass();
    expect((await firesOf(job.id, '?outcome=missed')).total).toBe(4);
    expect((await firesOf(job.id, '?outcome=fired')).total).toBe(0);
    const ranged = await firesOf(job.id, `?from=${iso(slots[1])}&to=${iso(slots[2])}`);
    expect(ranged.data.map((x) => x.scheduled_for)).toEqual([iso(slots[2]), iso(slots[1])]);
    const page = await firesOf(job.id, '?limit=1&offset=1');
    expect(page).toMatchObject({ total: 4, limit: 1, offset: 1 });
    expect(page.data.map((x) => x.scheduled_for)).toEqual([iso(slots[2])]);
  });

  it.each([
    ['outcome=ran', 'outcome'],
    ['from=yesterday', 'from'],
    ['to=2030-13-01', 'to'],
    ['from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', 'from'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['job=1', 'job'],
  ])('answers 400 for ?%s, naming %s', async (query, path) => {
    const job = await everyMinute();
    const res = await f.get(`/v1/jobs/${job.id}/fires?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  });

  it("answers 404 for a job that does not exist and for another workspace's job", async () => {
    const job = await everyMinute();
    const other = await f.ctx.workspace('other');
    expect((await f.get('/v1/jobs/job_missing/fires')).status).toBe(404);
    const res = await request(f.app).get(`/v1/jobs/${job.id}/fires`).set(other.auth);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('GET /v1/fires', () => {
  it('lists the workspace’s fires with their job, filters by job_id, and shows none of another workspace', async () => {
    const job = await everyMinute({ name: 'ledger A', catch_up_policy: 'none' });
    await anOutageOf(f.ctx.runtime, job.id, 2);
    await schedulerPass();
    const res = await f.get(`/v1/fires?job_id=${job.id}&outcome=missed`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.every((x: Record<string, unknown>) => x.job_id === job.id && x.job_name === 'ledger A')).toBe(true);
    const all = await f.get('/v1/fires?limit=100');
    expect(all.body.total).toBeGreaterThanOrEqual(2);
    const times = all.body.data.map((x: { scheduled_for: string }) => x.scheduled_for);
    expect([...times].sort().reverse()).toEqual(times);
    const other = await f.ctx.workspace('elsewhere');
    const theirs = await request(f.app).get('/v1/fires').set(other.auth);
    expect(theirs.body).toEqual({ data: [], total: 0, limit: 50, offset: 0 });
    expect((await f.get('/v1/fires?outcome=nope')).status).toBe(400);
  });

  it.each(['job_id=job_%00x', 'outcome=missed%00', 'from=2030-01-01T00:00:00Z%00'])('answers a NUL byte in a filter (?%s) with a 4xx, never a 500', async (query) => {
    const res = await f.get(`/v1/fires?${query}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.code).toEqual(expect.any(String));
  });
});

describe('fire policies on jobs', () => {
  it('shows them with their defaults on every kind with a schedule and takes them in PATCH', async () => {
    const job = await everyMinute();
    expect(job).toMatchObject({ overlap_policy: 'queue', catch_up_policy: 'one', jitter_seconds: 0 });
    const patched = await f.patch(`/v1/jobs/${job.id}`, { overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 30 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ overlap_policy: 'skip', catch_up_policy: 'none', jitter_seconds: 30 });
    const bad = await f.patch(`/v1/jobs/${job.id}`, { jitter_seconds: 3601, overlap_policy: 'parallel' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['jitter_seconds', 'overlap_policy']);
    expect((await f.get(`/v1/jobs/${job.id}`)).body.jitter_seconds).toBe(30);
  });

  it('refuses them on kinds without a schedule, which do not show them, and drops them when a job changes to one', async () => {
    const once = await f.post('/v1/jobs', aOneTimeJob({ request: { url: `${f.target.url}/once` }, jitter_seconds: 5 }));
    expect(once.status).toBe(400);
    expect(once.body.error.details.map((d: { path: string }) => d.path)).toEqual(['jitter_seconds']);
    const trigger = await f.createJob(aTriggerJob([waitStep('w')]));
    expect(trigger).not.toHaveProperty('overlap_policy');
    expect((await f.patch(`/v1/jobs/${trigger.id}`, { catch_up_policy: 'none' })).status).toBe(400);
    const job = await everyMinute({ jitter_seconds: 5 });
    const changed = await f.patch(`/v1/jobs/${job.id}`, { kind: 'one_time' });
    expect(changed.status).toBe(200);
    expect(changed.body).not.toHaveProperty('jitter_seconds');
  });
});
