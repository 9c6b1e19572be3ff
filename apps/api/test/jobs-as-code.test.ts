import request from 'supertest';
import { aCronJob, aKeyedJob, aOneTimeJob } from '@cronsvc/core/testing';
import { useApiApp } from './api-app.js';

const api = useApiApp();

/** A fresh workspace per test: its jobs, tags and keys are its own. */
async function workspace() {
  const { auth } = await api.ctx.workspace();
  const call = {
    post: (path: string, body: unknown) => request(api.app).post(path).set(auth).send(body as object),
    get: (path: string) => request(api.app).get(path).set(auth),
    patch: (path: string, body: unknown) => request(api.app).patch(path).set(auth).send(body as object),
    apply: (body: unknown) => request(api.app).post('/v1/jobs/apply').set(auth).send(body as object),
  };
  const jobs = async () => (await call.get('/v1/jobs?limit=100')).body.data as { id: string; key: string | null; state: string; tags: string[]; updated_at: string; name: string }[];
  return { ...call, jobs };
}

describe('keys and tags on jobs', () => {
  it('stores a key and tags on create, tags sorted and without repeats, and refuses a key taken with 409 conflict', async () => {
    const w = await workspace();
    const res = await w.post('/v1/jobs', aKeyedJob('billing.invoices', { tags: ['nightly', 'billing', 'nightly'] }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ key: 'billing.invoices', tags: ['billing', 'nightly'] });
    expect((await w.post('/v1/jobs', aCronJob())).body).toMatchObject({ key: null, tags: [] });
    const taken = await w.post('/v1/jobs', aKeyedJob('billing.invoices'));
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
  });

  it('validates keys and tags', async () => {
    const w = await workspace();
    const res = await w.post('/v1/jobs', aKeyedJob('Bad Key', { tags: ['ok', 'Not OK', ...Array.from({ length: 20 }, (_, i) => `t${i}`)] }));
    expect(res.status).toBe(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['key', 'tags[1]']));
  });

  it('changes, clears and guards the key and tags with PATCH', async () => {
    const w = await workspace();
    const a = (await w.post('/v1/jobs', aKeyedJob('a'))).body;
    await w.post('/v1/jobs', aKeyedJob('b'));
    expect((await w.patch(`/v1/jobs/${a.id}`, { tags: ['x', 'a'] })).body.tags).toEqual(['a', 'x']);
    expect((await w.patch(`/v1/jobs/${a.id}`, { key: 'b' })).status).toBe(409);
    expect((await w.patch(`/v1/jobs/${a.id}`, { key: 'a2' })).body.key).toBe('a2');
    expect((await w.patch(`/v1/jobs/${a.id}`, { key: null })).body.key).toBeNull();
  });

  it('filters the list by tag, every tag given must match, and counts jobs by tag', async () => {
    const w = await workspace();
    await w.post('/v1/jobs', aCronJob({ name: 'one', tags: ['billing'] }));
    await w.post('/v1/jobs', aCronJob({ name: 'two', tags: ['billing', 'eu'] }));
    await w.post('/v1/jobs', aCronJob({ name: 'three', tags: ['eu'] }));
    const billing = await w.get('/v1/jobs?tag=billing');
    expect(billing.body.data.map((j: { name: string }) => j.name).sort()).toEqual(['one', 'two']);
    const both = await w.get('/v1/jobs?tag=billing&tag=eu');
    expect(both.body.data.map((j: { name: string }) => j.name)).toEqual(['two']);
    expect((await w.get('/v1/jobs?tag=Nope')).status).toBe(400);
    expect((await w.get('/v1/tags')).body).toEqual({ data: [{ tag: 'billing', jobs: 2 }, { tag: 'eu', jobs: 2 }] });
  });

  it('pauses and resumes by tag, leaving jobs already in that state and other tags as they are', async () => {
    const w = await workspace();
    await w.post('/v1/jobs', aCronJob({ name: 'b1', tags: ['billing'] }));
    const b2 = (await w.post('/v1/jobs', aCronJob({ name: 'b2', tags: ['billing'] }))).body;
    await w.post('/v1/jobs', aCronJob({ name: 'draft', tags: ['billing'], state: 'draft' }));
    await w.post('/v1/jobs', aCronJob({ name: 'other', tags: ['reports'] }));
    await w.post(`/v1/jobs/${b2.id}/pause`, {});
    expect((await w.post('/v1/tags/billing/pause', {})).body).toEqual({ tag: 'billing', changed: 1 });
    const states = Object.fromEntries((await w.jobs()).map((j) => [j.name, j.state]));
    expect(states).toEqual({ b1: 'paused', b2: 'paused', draft: 'draft', other: 'active' });
    expect((await w.post('/v1/tags/billing/pause', {})).body.changed).toBe(0);
    const resumed = await w.post('/v1/tags/billing/resume', {});
    expect(resumed.body).toEqual({ tag: 'billing', changed: 2 });
    const after = await w.get(`/v1/jobs/${b2.id}`);
    expect(after.body).toMatchObject({ state: 'active', next_run_at: expect.any(String) });
    expect((await w.post('/v1/tags/NOT%20A%20TAG/pause', {})).status).toBe(400);
  });
});

describe('POST /v1/jobs/apply', () => {
  const doc = () => [
    aKeyedJob('billing.invoices', { tags: ['billing'], request: { method: 'POST', headers: { 'X-A': '1', 'X-B': '2' } } }),
    aKeyedJob('billing.reminders', { tags: ['billing'] }),
    aKeyedJob('reports.daily', { tags: ['reports'] }),
  ];

  it('creates the jobs of a document, then reports everything unchanged and changes no updated_at when applied again', async () => {
    const w = await workspace();
    const first = await w.apply({ jobs: doc() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ created: ['billing.invoices', 'billing.reminders', 'reports.daily'], updated: [], deleted: [], unchanged: [] });
    const before = await w.jobs();
    const again = await w.apply({ jobs: doc() });
    expect(again.body).toEqual({ created: [], updated: [], deleted: [], unchanged: ['billing.invoices', 'billing.reminders', 'reports.daily'] });
    expect((await w.jobs()).map((j) => j.updated_at)).toEqual(before.map((j) => j.updated_at));
  });

  it('takes defaults written out, reordered headers and the fields the service sets for no change', async () => {
    const w = await workspace();
    await w.apply({ jobs: doc() });
    const shown = (await w.get('/v1/jobs/export')).body.jobs as Record<string, unknown>[];
    const invoices = shown.find((j) => j.key === 'billing.invoices') as Record<string, unknown>;
    const rewritten = { ...invoices, id: 'job_whatever', created_at: 'then', request: { ...(invoices.request as object), headers: { 'X-B': '2', 'X-A': '1' } } };
    const res = await w.apply({ jobs: [rewritten] });
    expect(res.body).toMatchObject({ unchanged: ['billing.invoices'], updated: [] });
  });

  it('names the top-level fields that change, and keeps a state left out', async () => {
    const w = await workspace();
    await w.apply({ jobs: doc() });
    const reminders = (await w.jobs()).find((j) => j.key === 'billing.reminders')!;
    await w.post(`/v1/jobs/${reminders.id}/pause`, {});
    const edited = doc();
    edited[0] = { ...edited[0], schedule: { cron: '5 4 * * *' }, tags: ['billing', 'eu'] };
    const res = await w.apply({ jobs: edited });
    expect(res.body).toEqual({ created: [], updated: [{ key: 'billing.invoices', fields: ['schedule', 'tags'] }], deleted: [], unchanged: ['billing.reminders', 'reports.daily'] });
    expect((await w.get(`/v1/jobs/${reminders.id}`)).body.state).toBe('paused');
    const activated = await w.apply({ jobs: [{ ...doc()[1], state: 'active' }] });
    expect(activated.body.updated).toEqual([{ key: 'billing.reminders', fields: ['state'] }]);
    expect((await w.get(`/v1/jobs/${reminders.id}`)).body).toMatchObject({ state: 'active', next_run_at: expect.any(String) });
  });

  it('answers a dry run with the same result and changes nothing', async () => {
    const w = await workspace();
    const dry = await w.apply({ jobs: doc(), dry_run: true });
    expect(dry.body.created).toHaveLength(3);
    expect(await w.jobs()).toEqual([]);
  });

  it('prunes only keyed jobs not given, only those with prune_tag when set, and never unkeyed jobs', async () => {
    const w = await workspace();
    await w.apply({ jobs: doc() });
    await w.post('/v1/jobs', aCronJob({ name: 'unkeyed', tags: ['billing'] }));
    const scoped = await w.apply({ jobs: [doc()[0]], prune: true, prune_tag: 'billing' });
    expect(scoped.body).toEqual({ created: [], updated: [], deleted: ['billing.reminders'], unchanged: ['billing.invoices'] });
    expect((await w.jobs()).map((j) => j.key ?? j.name).sort()).toEqual(['billing.invoices', 'reports.daily', 'unkeyed']);
    const noPrune = await w.apply({ jobs: [] });
    expect(noPrune.body.deleted).toEqual([]);
    const all = await w.apply({ jobs: [], prune: true });
    expect(all.body.deleted).toEqual(['billing.invoices', 'reports.daily']);
    expect((await w.jobs()).map((j) => j.name)).toEqual(['unkeyed']);
  });

  it('changes nothing when one job is invalid, and names it by index and key', async () => {
    const w = await workspace();
    await w.apply({ jobs: doc() });
    const before = await w.jobs();
    const bad = [aKeyedJob('new.one'), { ...doc()[0], name: 'renamed' }, aKeyedJob('broken', { request: { url: 'not a url' } }), aCronJob({ name: 'no key' })];
    const res = await w.apply({ jobs: bad, prune: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details.find((d) => d.path === 'jobs[2].request.url')?.message).toMatch(/"broken"/);
    expect(details.map((d) => d.path)).toContain('jobs[3].key');
    expect(await w.jobs()).toEqual(before);
  });

  it('refuses a key given twice, and a job whose secret does not exist', async () => {
    const w = await workspace();
    const res = await w.apply({ jobs: [aKeyedJob('a'), aKeyedJob('a'), aKeyedJob('b', { request: { headers: { Authorization: 'Bearer {{secret.missing}}' } } })] });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['jobs[1].key', 'jobs[2].request.headers.Authorization']));
  });

  it('fires a one_time job it creates active, as POST /v1/jobs does', async () => {
    const w = await workspace();
    await w.apply({ jobs: [aOneTimeJob({ key: 'once', name: 'once' })] });
    const [job] = await w.jobs();
    expect((await w.get(`/v1/jobs/${job.id}/executions`)).body.total).toBe(1);
  });

  it('exports keyed jobs as a document that applies with no change, secret references as written', async () => {
    const w = await workspace();
    await w.post('/v1/secrets', { name: 'token', value: 'hunter2' });
    await w.apply({ jobs: [...doc(), aKeyedJob('with.secret', { request: { headers: { Authorization: 'Bearer {{secret.token}}' } } })] });
    await w.post('/v1/jobs', aCronJob({ name: 'unkeyed' }));
    const exported = await w.get('/v1/jobs/export');
    expect(exported.body.jobs.map((j: { key: string }) => j.key)).toEqual(['billing.invoices', 'billing.reminders', 'reports.daily', 'with.secret']);
    expect(JSON.stringify(exported.body)).not.toContain('hunter2');
    expect(JSON.stringify(exported.body)).toContain('{{secret.token}}');
    expect(exported.body.jobs[0]).not.toHaveProperty('id');
    expect((await w.get('/v1/jobs/export?tag=reports')).body.jobs.map((j: { key: string }) => j.key)).toEqual(['reports.daily']);
    const res = await w.apply({ jobs: exported.body.jobs });
    expect(res.body.unchanged).toHaveLength(4);
    expect(res.body.updated).toEqual([]);
  });

  it('applies a thousand jobs in a few statements', async () => {
    const w = await workspace();
    const many = Array.from({ length: 1000 }, (_, i) => aKeyedJob(`bulk.${i}`, { tags: ['bulk'] }));
    const started = Date.now();
    const created = await w.apply({ jobs: many });
    const createdMs = Date.now() - started;
    expect(created.body.created).toHaveLength(1000);
    const again = Date.now();
    const unchanged = await w.apply({ jobs: many.map((j, i) => (i % 2 ? { ...j, name: `renamed ${i}` } : j)) });
    const updatedMs = Date.now() - again;
    expect(unchanged.body.updated).toHaveLength(500);
    // Measured, not asserted: the machine running the tests may be busy (docs/JOBS-AS-CODE.md has the figures).
    process.stdout.write(`apply 1000 jobs: create ${createdMs} ms, 500 updated + 500 unchanged ${updatedMs} ms\n`);
  });
});
