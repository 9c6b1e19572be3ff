import request from 'supertest';
import { aCronJob, approvalStep, aTriggerJob, aWorkflow, httpStep, waitStep } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

const f = useWorkflowFixture();

const URL = 'https://example.com/hook';

/** The paths of a 400's details, sorted. */
async function refused(body: unknown): Promise<string[]> {
  const res = await f.post('/v1/jobs', body);
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  return res.body.error.details.map((d: { path: string }) => d.path).sort();
}

describe('step-driven jobs', () => {
  it('creates a workflow with defaults for its steps, a cron schedule and max_concurrent_executions 1', async () => {
    const job = await f.createJob(aWorkflow([httpStep('a', URL), waitStep('b'), approvalStep('c', 'ok?')], { schedule: { cron: '*/5 * * * *' } }));
    expect(job).toMatchObject({ kind: 'workflow', state: 'active', max_concurrent_executions: 1, max_workflow_duration_seconds: 1800, schedule: { cron: '*/5 * * * *' } });
    expect(new Date(job.next_run_at).getTime()).toBeGreaterThan(Date.now());
    expect(job.steps).toEqual([
      { id: 'a', type: 'http', url: URL, method: 'GET', headers: {}, timeout_seconds: 30, success_statuses: [200, 201, 202, 204] },
      { id: 'b', type: 'wait_for_webhook', on_timeout: 'fail' },
      { id: 'c', type: 'approval', message: 'ok?', on_timeout: 'reject' },
    ]);
    expect(job).not.toHaveProperty('webhook_token');
  });

  it('names the path of every bad step field', async () => {
    const paths = await refused(
      aWorkflow([
        { id: 'a', type: 'http' },
        { id: 'bad id!', type: 'http', url: 'ftp://x', method: 'TRACE', timeout_seconds: 0, body_template: 5 },
        { id: 'w', type: 'wait_for_webhook', timeout_seconds: 7201, on_timeout: 'reject', message: 'no' },
        { id: 'p', type: 'approval', on_timeout: 'fail' },
        { id: 'x', type: 'sleep' },
        { type: 'http', url: URL },
        'not a step' as unknown as Record<string, unknown>,
      ]),
    );
    expect(paths).toEqual(
      [
        'steps[0].url',
        'steps[1].id', 'steps[1].url', 'steps[1].method', 'steps[1].timeout_seconds', 'steps[1].body_template',
        'steps[2].timeout_seconds', 'steps[2].on_timeout', 'steps[2].message',
        'steps[3].message', 'steps[3].on_timeout',
        'steps[4].type',
        'steps[5].id',
        'steps[6]',
      ].sort(),
    );
  });

  it('refuses duplicate step ids, bad extract keys and JSONPaths, and a step list of the wrong size', async () => {
    expect(await refused(aWorkflow([waitStep('same'), waitStep('same')]))).toEqual(['steps[1]']);
    expect(await refused(aWorkflow([httpStep('a', URL, { extract: { 'bad key': '$.a', ok: 'no-dollar' }, extract_to_context: { k: '$.a(' } })]))).toEqual(
      ['steps[0].extract.bad key', 'steps[0].extract.ok', 'steps[0].extract_to_context.k'].sort(),
    );
    expect(await refused(aWorkflow([]))).toEqual(['steps']);
    expect(await refused(aWorkflow(Array.from({ length: 51 }, (_, i) => waitStep(`s${i}`))))).toEqual(['steps']);
  });

  it('checks placeholders at save: unknown roots, trigger values outside webhook_trigger jobs, secrets shown to approvers, missing secrets', async () => {
    const paths = await refused(
      aWorkflow([
        httpStep('a', `${URL}?x={{nope.x}}`, { headers: { 'X-A': '{{context}}', 'X-B': '{{trigger.body.a}}', Authorization: '{{secret.MISSING}}' }, body_template: { deep: ['{{contxt.a}}'] } }),
        approvalStep('b', 'Key is {{secret.ANY}} and {{trigger.headers.a.b}}'),
      ]),
    );
    expect(paths).toEqual(['steps[0].url', 'steps[0].headers.X-A', 'steps[0].headers.X-B', 'steps[0].headers.Authorization', 'steps[0].body_template.deep[0]', 'steps[1].message', 'steps[1].message'].sort());
    const res = await f.post('/v1/jobs', aWorkflow([httpStep('a', `${URL}?x={{nope.x}}`)]));
    expect(res.body.error.details[0].message).toContain('{{nope.x}} is not a known variable');
    // The same placeholders are fine where they have a value.
    await f.createJob(aTriggerJob([httpStep('a', `${URL}?e={{trigger.headers.x-event}}&q={{trigger.query.q}}&b={{trigger.body.a.b}}&c={{context.k}}&ip={{trigger.source_ip}}`)]));
  });

  it('refuses step fields on request jobs and a request on step-driven jobs', async () => {
    expect(await refused(aCronJob({ request: { url: URL }, steps: [waitStep('a')] }))).toEqual(['steps']);
    expect(await refused(aWorkflow([waitStep('a')], { request: { url: URL } }))).toEqual(['request']);
    expect(await refused(aTriggerJob([waitStep('a')], { schedule: { cron: '* * * * *' } }))).toEqual(['schedule']);
    expect(await refused(aWorkflow([waitStep('a')], { webhook_secret: 'x' }))).toEqual(['webhook_secret']);
    expect(await refused(aWorkflow([waitStep('a')], { max_workflow_duration_seconds: 7201 }))).toEqual(['max_workflow_duration_seconds']);
  });

  it('refuses a wait the run deadline would always end first, naming both fields, on create and on a PATCH of either', async () => {
    const paths = (res: request.Response) => [res.status, res.body.error?.details.map((d: { path: string }) => d.path)];
    const steps = [httpStep('build', URL), approvalStep('approve', 'Ship it?', { timeout_seconds: 3600 })];
    const create = await f.post('/v1/jobs', aWorkflow(steps));
    expect(paths(create)).toEqual([400, ['steps[1].timeout_seconds', 'max_workflow_duration_seconds']]);
    expect(create.body.error.message).toContain('max_workflow_duration_seconds: is 1800 s (the default), not more than steps[1].timeout_seconds (3600 s)');

    const job = await f.createJob(aWorkflow(steps, { max_workflow_duration_seconds: 7200 }));
    expect(paths(await f.patch(`/v1/jobs/${job.id}`, { max_workflow_duration_seconds: 3600 }))).toEqual([400, ['steps[1].timeout_seconds', 'max_workflow_duration_seconds']]);
    expect(paths(await f.patch(`/v1/jobs/${job.id}`, { steps: [waitStep('callback', { timeout_seconds: 7200 })] }))).toEqual([400, ['steps[0].timeout_seconds', 'max_workflow_duration_seconds']]);
    expect(paths(await f.patch(`/v1/jobs/${job.id}`, { kind: 'webhook_trigger', max_workflow_duration_seconds: 60 }))).toEqual([400, ['steps[1].timeout_seconds', 'max_workflow_duration_seconds']]);
    expect((await f.get(`/v1/jobs/${job.id}`)).body).toMatchObject({ kind: 'workflow', max_workflow_duration_seconds: 7200, steps: [{ id: 'build' }, { id: 'approve', timeout_seconds: 3600 }] });

    const both = await f.patch(`/v1/jobs/${job.id}`, { max_workflow_duration_seconds: 600, steps: [approvalStep('approve', 'Ship it?', { timeout_seconds: 300 })] });
    expect(both.body).toMatchObject({ max_workflow_duration_seconds: 600, steps: [{ id: 'approve', timeout_seconds: 300 }] });
    // A job stored before the rule keeps taking the changes that do not touch it.
    await f.ctx.runtime.db.job.update({ where: { id: job.id }, data: { maxWorkflowDurationSeconds: 60 } });
    expect((await f.patch(`/v1/jobs/${job.id}`, { name: 'renamed' })).status).toBe(200);
  });

  it('switches a job between workflow and webhook_trigger by PATCH, with a token only while it is a trigger', async () => {
    const job = await f.createJob(aWorkflow([waitStep('a')]));
    const trigger = await f.patch(`/v1/jobs/${job.id}`, { kind: 'webhook_trigger', webhook_secret: 'abc' });
    expect(trigger.status).toBe(200);
    expect(trigger.body).toMatchObject({ kind: 'webhook_trigger', next_run_at: null, webhook_secret_configured: true });
    expect(trigger.body.webhook_token).toMatch(/^trg_/);
    const back = await f.patch(`/v1/jobs/${job.id}`, { kind: 'workflow', schedule: { cron: '0 * * * *' } });
    expect(back.status).toBe(200);
    expect(back.body).not.toHaveProperty('webhook_token');
    expect(await f.ctx.runtime.db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ webhookToken: null, webhookTokenHash: null, webhookSecretHash: null });
    const steps = await f.patch(`/v1/jobs/${job.id}`, { steps: [approvalStep('only', 'go?')] });
    expect(steps.body.steps).toEqual([{ id: 'only', type: 'approval', message: 'go?', on_timeout: 'reject' }]);
  });
});

describe('job context', () => {
  it('reads an empty map, sets keys, deletes keys set to null, and answers the map after each change', async () => {
    const job = await f.createJob(aWorkflow([waitStep('a')]));
    expect((await f.get(`/v1/jobs/${job.id}/context`)).body).toEqual({});
    const set = await f.patch(`/v1/jobs/${job.id}/context`, { cursor: '10', region: 'eu', empty: '' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ cursor: '10', region: 'eu', empty: '' });
    expect((await f.patch(`/v1/jobs/${job.id}/context`, { region: null, cursor: '11', unknown: null })).body).toEqual({ cursor: '11', empty: '' });
    expect((await f.get(`/v1/jobs/${job.id}/context`)).body).toEqual({ cursor: '11', empty: '' });
  });

  it('refuses values that are not strings, bad keys and contexts over the limits, changing nothing', async () => {
    const job = await f.createJob(aWorkflow([waitStep('a')]));
    await f.patch(`/v1/jobs/${job.id}/context`, { keep: 'me' });
    const bad = await f.patch(`/v1/jobs/${job.id}/context`, { n: 1, obj: { a: 1 }, 'bad key': 'x', long: 'x'.repeat(8 * 1024 + 1) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['bad key', 'long', 'n', 'obj']);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await f.patch(`/v1/jobs/${job.id}/context`, many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].message).toContain('101 keys; at most 100');
    const big = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`big${i}`, 'x'.repeat(8 * 1024)]));
    const tooBig = await f.patch(`/v1/jobs/${job.id}/context`, big);
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.details[0].message).toContain('at most 65536');
    // Sent as JSON text: a JSON array, string and null are bodies of the right type but not a context.
    for (const body of [[], 'text', null]) {
      const res = await request(f.app).patch(`/v1/jobs/${job.id}/context`).set(f.auth).set('Content-Type', 'application/json').send(JSON.stringify(body));
      expect(res.status).toBe(400);
    }
    expect((await f.get(`/v1/jobs/${job.id}/context`)).body).toEqual({ keep: 'me' });
  });

  it('answers 404 for a job of another workspace', async () => {
    const other = await f.ctx.workspace('other');
    const job = await f.createJob(aWorkflow([waitStep('a')]));
    const res = await f.get(`/v1/jobs/${job.id}/context`).set('Authorization', `Bearer ${other.token}`);
    expect(res.status).toBe(404);
  });
});
