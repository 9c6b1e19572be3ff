import request from 'supertest';
import { executionRow, type Prisma } from '@cronsvc/core';
import { aCronJob, aOneTimeJob, waitFor, type TargetServer, type TestContext, type TestWorkspace } from '@cronsvc/core/testing';
import type { createApp } from '../src/app.js';
import { useWorkflowFixture } from './workflow-fixture.js';

let ctx: TestContext;
let app: ReturnType<typeof createApp>;
let target: TargetServer;
// Requests to /flaky fail with 500 until the target is healthy again; every other path answers 200.
let flakyIsDown = false;

const f = useWorkflowFixture();
beforeAll(() => ({ ctx, app, target } = f));
beforeEach(() => {
  target.handle((req, res) => {
    res.statusCode = req.url.startsWith('/flaky') && flakyIsDown ? 500 : 200;
    res.end(res.statusCode === 200 ? 'ok' : 'down');
  });
});

type Tenant = TestWorkspace;
interface JobRef {
  id: string;
  name: string;
}

// Every test works in its own workspace, so DLQ totals and stats see only what the test made.
const tenant = () => ctx.workspace();

/** A cron job that never fires during the test (no scheduler runs); replays of it hit a healthy path. */
async function savedJob(t: Tenant, name: string): Promise<JobRef> {
  const res = await request(app).post('/v1/jobs').set(t.auth).send(aCronJob({ name, request: { url: `${target.url}/ok` } }));
  expect(res.status).toBe(201);
  return { id: res.body.id, name };
}

/** A finished execution written straight to Postgres: dead-lettered (now, unless given) and failed by default. */
function failedRow(t: Tenant, job: JobRef, fields: Partial<Prisma.ExecutionCreateManyInput> = {}): Prisma.ExecutionCreateManyInput {
  const now = new Date();
  return {
    ...executionRow({ workspaceId: t.id, jobId: job.id, jobName: job.name, source: 'manual', scheduledFor: now }),
    status: 'failed',
    attemptCount: 1,
    errorClass: 'HTTP_5XX',
    errorMessage: 'HTTP 500',
    finishedAt: now,
    deadLetteredAt: now,
    ...fields,
  };
}

async function deadLetter(t: Tenant, job: JobRef, fields: Partial<Prisma.ExecutionCreateManyInput> = {}): Promise<string> {
  return (await ctx.runtime.db.execution.create({ data: failedRow(t, job, fields) })).id;
}

const at = (iso: string) => new Date(iso);
const get = (t: Tenant, path: string) => request(app).get(path).set(t.auth);
const post = (t: Tenant, path: string, body?: object) => request(app).post(path).set(t.auth).send(body);
const dlqIds = async (t: Tenant, query = '') => (await get(t, `/v1/dlq${query}`)).body.data.map((e: { id: string }) => e.id);
const executionCount = () => ctx.runtime.db.execution.count();

async function succeeded(t: Tenant, executionId: string) {
  return waitFor(
    async () => {
      const res = await get(t, `/v1/executions/${executionId}`);
      return res.body.status === 'succeeded' ? res.body : undefined;
    },
    { what: `execution ${executionId} to succeed` },
  );
}

describe('the DLQ round trip', () => {
  it('lists a failure, counts it, replays it against the healed target, and keeps the original out of the DLQ with its attempts', async () => {
    const t = await tenant();
    flakyIsDown = true;
    const created = await post(t, '/v1/jobs', aOneTimeJob({ name: 'flaky', request: { url: `${target.url}/flaky` }, retry_policy: { max_attempts: 1 } }));
    expect(created.status).toBe(201);
    const [original] = (await get(t, `/v1/jobs/${created.body.id}/executions`)).body.data;
    const failed = await waitFor(
      async () => {
        const res = await get(t, `/v1/executions/${original.id}`);
        return res.body.status === 'failed' ? res.body : undefined;
      },
      { what: 'the first run to fail' },
    );
    expect(failed.dead_lettered_at).not.toBeNull();

    const listed = await get(t, '/v1/dlq');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(listed.body.data[0]).toMatchObject({ id: original.id, status: 'failed', error_class: 'HTTP_5XX', dead_lettered_at: failed.dead_lettered_at });
    expect(listed.body.data[0].attempts).toHaveLength(1);
    expect((await get(t, '/v1/dlq/stats')).body).toEqual({
      total: 1,
      oldest_dead_lettered_at: failed.dead_lettered_at,
      by_job: [{ job_id: created.body.id, job_name: 'flaky', count: 1 }],
      by_error_class: { HTTP_5XX: 1 },
    });

    flakyIsDown = false;
    const before = Date.now();
    const replay = await post(t, `/v1/dlq/${original.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ source: 'dlq_replay', status: 'queued', replay_of_id: original.id, job_id: created.body.id, dead_lettered_at: null });
    expect(replay.body.id).not.toBe(original.id);
    expect(new Date(replay.body.scheduled_for).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(replay.body.scheduled_for).getTime()).toBeLessThanOrEqual(Date.now());

    const done = await succeeded(t, replay.body.id);
    expect(done.attempts).toMatchObject([{ number: 1, status: 'SUCCESS', statusCode: 200 }]);
    expect((await get(t, '/v1/dlq')).body.total).toBe(0);
    expect((await get(t, '/v1/dlq/stats')).body).toEqual({ total: 0, oldest_dead_lettered_at: null, by_job: [], by_error_class: {} });
    const kept = await get(t, `/v1/executions/${original.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ status: 'failed', error_class: 'HTTP_5XX', dead_lettered_at: null, source: 'schedule' });
    expect(kept.body.attempts).toMatchObject([{ number: 1, status: 'HTTP_ERROR', statusCode: 500 }]);

    const again = await post(t, `/v1/dlq/${original.id}/replay`);
    expect(again.status).toBe(404);
    expect(again.body.error).toEqual({ code: 'not_found', message: 'execution not found in the dead-letter queue' });
  });
});

describe('GET /v1/dlq', () => {
  let t: Tenant;
  let reports: JobRef;
  let other: JobRef;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await tenant();
    reports = await savedJob(t, 'Nightly Reports');
    other = await savedJob(t, 'cleanup');
    ids.old = await deadLetter(t, reports, { scheduledFor: at('2030-01-01T00:00:00Z'), createdAt: at('2030-01-03T00:00:00Z') });
    ids.mid = await deadLetter(t, other, { scheduledFor: at('2030-01-02T00:00:00Z'), createdAt: at('2030-01-02T00:00:00Z') });
    ids.new = await deadLetter(t, reports, { scheduledFor: at('2030-01-03T00:00:00Z'), createdAt: at('2030-01-01T00:00:00Z') });
    // Failed but already out of the DLQ, and a success: executions, never DLQ items.
    await deadLetter(t, reports, { deadLetteredAt: null });
    await deadLetter(t, reports, { status: 'succeeded', errorClass: null, deadLetteredAt: null });
  });

  it('lists only dead-lettered executions, newest scheduled_for first, in the list envelope', async () => {
    const res = await get(t, '/v1/dlq');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([ids.new, ids.mid, ids.old]);
  });

  it('takes the filters, sort and paging of GET /v1/executions', async () => {
    expect(await dlqIds(t, '?job_name=nightly')).toEqual([ids.new, ids.old]);
    expect(await dlqIds(t, '?sort=created_at')).toEqual([ids.old, ids.mid, ids.new]);
    expect(await dlqIds(t, '?order=asc')).toEqual([ids.old, ids.mid, ids.new]);
    expect(await dlqIds(t, '?from=2030-01-02T00:00:00Z&to=2030-01-03T00:00:00Z')).toEqual([ids.new, ids.mid]);
    expect(await dlqIds(t, '?status=succeeded')).toEqual([]);
    const page = await get(t, '/v1/dlq?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([ids.mid]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['sort=dead_lettered_at', 'sort'],
    ['order=up', 'order'],
    ['status=dead', 'status'],
    ['from=yesterday', 'from'],
    ['from=2030-02-01T00:00:00Z&to=2030-01-01T00:00:00Z', 'from'],
  ])('rejects %s with validation_failed', async (query, path) => {
    const res = await get(t, `/v1/dlq?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
  });

  it("does not show another workspace's items", async () => {
    const stranger = await tenant();
    expect((await get(stranger, '/v1/dlq')).body).toMatchObject({ total: 0, data: [] });
  });
});

describe('GET /v1/dlq/stats', () => {
  it('counts items by job (largest first, current job name) and by error class, oldest first seen', async () => {
    const t = await tenant();
    const a = await savedJob(t, 'a');
    const b = await savedJob(t, 'b');
    await deadLetter(t, b, { deadLetteredAt: at('2030-01-02T00:00:00.000Z'), errorClass: 'HTTP_4XX' });
    await deadLetter(t, a, { deadLetteredAt: at('2030-01-01T00:00:00.123Z') });
    await deadLetter(t, a, { deadLetteredAt: at('2030-01-03T00:00:00.000Z') });
    await deadLetter(t, a, { deadLetteredAt: at('2030-01-04T00:00:00.000Z'), errorClass: 'TIMEOUT' });
    await deadLetter(t, a, { deadLetteredAt: null });
    await deadLetter(t, b, { status: 'succeeded', errorClass: null, deadLetteredAt: null });
    const stranger = await tenant();
    await deadLetter(stranger, await savedJob(stranger, 'elsewhere'), { deadLetteredAt: at('2029-01-01T00:00:00.000Z') });
    expect((await request(app).patch(`/v1/jobs/${a.id}`).set(t.auth).send({ name: 'a renamed' })).status).toBe(200);

    const res = await get(t, '/v1/dlq/stats');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 4,
      oldest_dead_lettered_at: '2030-01-01T00:00:00.123Z',
      by_job: [
        { job_id: a.id, job_name: 'a renamed', count: 3 },
        { job_id: b.id, job_name: 'b', count: 1 },
      ],
      by_error_class: { HTTP_4XX: 1, HTTP_5XX: 2, TIMEOUT: 1 },
    });
  });
});

describe('POST /v1/dlq/:id/replay', () => {
  it('answers 404 for an execution that is not in the DLQ, unknown, or of another workspace, and changes nothing', async () => {
    const t = await tenant();
    const job = await savedJob(t, 'j');
    const succeededId = await deadLetter(t, job, { status: 'succeeded', errorClass: null, deadLetteredAt: null });
    const stranger = await tenant();
    const theirs = await deadLetter(stranger, await savedJob(stranger, 'theirs'));
    const count = await executionCount();
    for (const id of [succeededId, 'exe_unknown', theirs]) {
      const res = await post(t, `/v1/dlq/${id}/replay`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await executionCount()).toBe(count);
    expect(await dlqIds(stranger)).toEqual([theirs]);
  });
});

describe('POST /v1/dlq/replay-batch', () => {
  it('replays the DLQ items among the ids, each once, and reports the others as failed', async () => {
    const t = await tenant();
    const job = await savedJob(t, 'batch');
    const first = await deadLetter(t, job);
    const second = await deadLetter(t, job);
    const notDead = await deadLetter(t, job, { status: 'succeeded', errorClass: null, deadLetteredAt: null });
    const stranger = await tenant();
    const theirs = await deadLetter(stranger, await savedJob(stranger, 'theirs'));

    const res = await post(t, '/v1/dlq/replay-batch', { ids: [first, 'exe_unknown', notDead, theirs, second] });
    expect(res.status).toBe(200);
    expect(res.body.replayed).toEqual([
      { id: first, execution_id: expect.stringMatching(/^exe_/) },
      { id: second, execution_id: expect.stringMatching(/^exe_/) },
    ]);
    const error = 'execution not found in the dead-letter queue';
    expect(res.body.failed).toEqual([
      { id: 'exe_unknown', error },
      { id: notDead, error },
      { id: theirs, error },
    ]);
    for (const { id, execution_id } of res.body.replayed) {
      const replay = await succeeded(t, execution_id);
      expect(replay).toMatchObject({ source: 'dlq_replay', replay_of_id: id, job_id: job.id });
    }
    expect(await dlqIds(t)).toEqual([]);
    expect(await dlqIds(stranger)).toEqual([theirs]);

    const repeat = await post(t, '/v1/dlq/replay-batch', { ids: [first] });
    expect(repeat.body).toEqual({ replayed: [], failed: [{ id: first, error }] });
  });

  it("replays a job's items oldest first and leaves other jobs' items", async () => {
    const t = await tenant();
    const job = await savedJob(t, 'by job');
    const keep = await savedJob(t, 'untouched');
    const newer = await deadLetter(t, job, { deadLetteredAt: at('2030-01-02T00:00:00Z') });
    const older = await deadLetter(t, job, { deadLetteredAt: at('2030-01-01T00:00:00Z') });
    const kept = await deadLetter(t, keep);

    const res = await post(t, '/v1/dlq/replay-batch', { job_id: job.id });
    expect(res.status).toBe(200);
    expect(res.body.failed).toEqual([]);
    expect(res.body.replayed.map((r: { id: string }) => r.id)).toEqual([older, newer]);
    expect(await dlqIds(t)).toEqual([kept]);
  });

  it('replays at most 100 items of a job per call, the oldest', async () => {
    const t = await tenant();
    const job = await savedJob(t, 'many');
    const base = Date.UTC(2030, 0, 1);
    await ctx.runtime.db.execution.createMany({ data: Array.from({ length: 101 }, (_, i) => failedRow(t, job, { deadLetteredAt: new Date(base + i * 1000) })) });
    const newest = await ctx.runtime.db.execution.findFirstOrThrow({ where: { jobId: job.id, deadLetteredAt: new Date(base + 100_000) } });

    const res = await post(t, '/v1/dlq/replay-batch', { job_id: job.id });
    expect(res.body.replayed).toHaveLength(100);
    expect(res.body.failed).toEqual([]);
    expect(await dlqIds(t)).toEqual([newest.id]);
  });

  it.each([
    ['an empty ids list', { ids: [] }],
    ['101 ids', { ids: Array.from({ length: 101 }, (_, i) => `exe_${i}`) }],
    ['a repeated id', { ids: ['ITEM', 'ITEM'] }],
    ['both ids and job_id', { ids: ['ITEM'], job_id: 'JOB' }],
    ['neither ids nor job_id', {}],
    ['an unknown field', { ids: ['ITEM'], force: true }],
    ['an unknown job_id', { job_id: 'job_unknown' }],
  ])('rejects %s with validation_failed and replays nothing', async (_what, body) => {
    const t = await tenant();
    const job = await savedJob(t, 'v');
    const item = await deadLetter(t, job);
    const filled = JSON.parse(JSON.stringify(body).replaceAll('ITEM', item).replaceAll('JOB', job.id));
    const count = await executionCount();
    const res = await post(t, '/v1/dlq/replay-batch', filled);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(await executionCount()).toBe(count);
    expect(await dlqIds(t)).toEqual([item]);
  });
});

describe('DELETE /v1/dlq/:id', () => {
  it('takes the item out of the DLQ and keeps the execution', async () => {
    const t = await tenant();
    const job = await savedJob(t, 'd');
    const item = await deadLetter(t, job);
    const other = await deadLetter(t, job);

    const res = await request(app).delete(`/v1/dlq/${item}`).set(t.auth);
    expect(res.status).toBe(204);
    expect(await dlqIds(t)).toEqual([other]);
    expect((await get(t, `/v1/executions/${item}`)).body).toMatchObject({ id: item, status: 'failed', dead_lettered_at: null });
    expect((await request(app).delete(`/v1/dlq/${item}`).set(t.auth)).status).toBe(404);
  });

  it("answers 404 for another workspace's item and leaves it in its DLQ", async () => {
    const t = await tenant();
    const stranger = await tenant();
    const theirs = await deadLetter(stranger, await savedJob(stranger, 'theirs'));
    const res = await request(app).delete(`/v1/dlq/${theirs}`).set(t.auth);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(await dlqIds(stranger)).toEqual([theirs]);
  });
});

describe('POST /v1/dlq/purge', () => {
  it("purges one job's items and keeps their executions", async () => {
    const t = await tenant();
    const job = await savedJob(t, 'purged');
    const keep = await savedJob(t, 'kept');
    const gone = [await deadLetter(t, job), await deadLetter(t, job)];
    const kept = await deadLetter(t, keep);

    const res = await post(t, '/v1/dlq/purge', { job_id: job.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ purged: 2 });
    expect(await dlqIds(t)).toEqual([kept]);
    for (const id of gone) expect((await get(t, `/v1/executions/${id}`)).body).toMatchObject({ status: 'failed', dead_lettered_at: null });
  });

  it('purges items dead-lettered strictly before `before`, in any offset', async () => {
    const t = await tenant();
    const job = await savedJob(t, 'aged');
    const oldest = await deadLetter(t, job, { deadLetteredAt: at('2030-01-01T00:00:00.000Z'), scheduledFor: at('2030-01-01T00:00:00Z') });
    const onTheDot = await deadLetter(t, job, { deadLetteredAt: at('2030-01-02T00:00:00.000Z'), scheduledFor: at('2030-01-02T00:00:00Z') });
    const newest = await deadLetter(t, job, { deadLetteredAt: at('2030-01-03T00:00:00.000Z'), scheduledFor: at('2030-01-03T00:00:00Z') });

    const res = await post(t, '/v1/dlq/purge', { before: '2030-01-02T02:00:00+02:00' });
    expect(res.body).toEqual({ purged: 1 });
    expect(await dlqIds(t)).toEqual([newest, onTheDot]);
    expect((await get(t, `/v1/executions/${oldest}`)).status).toBe(200);
  });

  it("purges the whole DLQ of the workspace in batches, and only that workspace's", async () => {
    const t = await tenant();
    const job = await savedJob(t, 'bulk');
    await ctx.runtime.db.execution.createMany({ data: Array.from({ length: 2345 }, () => failedRow(t, job)) });
    const stranger = await tenant();
    const theirs = await deadLetter(stranger, await savedJob(stranger, 'theirs'));

    const res = await post(t, '/v1/dlq/purge', {});
    expect(res.body).toEqual({ purged: 2345 });
    expect((await get(t, '/v1/dlq')).body.total).toBe(0);
    expect(await ctx.runtime.db.execution.count({ where: { jobId: job.id } })).toBe(2345);
    expect(await dlqIds(stranger)).toEqual([theirs]);
  });

  it.each([
    ['a before without a zone', { before: '2030-01-02T00:00:00' }, 'before'],
    ['a before that is not a timestamp', { before: 'last week' }, 'before'],
    ['an unknown field', { status: 'failed' }, 'status'],
    ['an unknown job_id', { job_id: 'job_unknown' }, 'job_id'],
  ])('rejects %s with validation_failed and purges nothing', async (_what, body, path) => {
    const t = await tenant();
    const item = await deadLetter(t, await savedJob(t, 'v'));
    const res = await post(t, '/v1/dlq/purge', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    expect(await dlqIds(t)).toEqual([item]);
  });
});
