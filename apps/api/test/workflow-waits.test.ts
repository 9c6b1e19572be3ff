import request from 'supertest';
import { approvalStep, aWorkflow, httpStep, waitFor, waitStep } from '@cronsvc/core/testing';
import { useWorkflowFixture } from './workflow-fixture.js';

const f = useWorkflowFixture({ scheduler: true });

/** The path of a public URL the service handed out (its host is PUBLIC_BASE_URL's). */
const pathOf = (url: string) => new URL(url).pathname;
const publicPost = (url: string, body?: unknown) => request(f.app).post(pathOf(url)).send(body as object);

describe('wait_for_webhook', () => {
  it('waits with a single-use resume URL, and continues with the posted payload as the step input', async () => {
    const job = await f.createJob(
      aWorkflow([
        httpStep('start', `${f.target.url}/start`),
        waitStep('callback', { timeout_seconds: 600, extract: { ref: '$.ref' } }),
        httpStep('finish', `${f.target.url}/finish?ref={{context.ref}}`),
      ]),
    );
    const id = await f.runNow(job.id);
    const waiting = await f.until(id, 'waiting');
    expect(waiting).toMatchObject({ waiting_reason: 'webhook', waiting_payload: { step_id: 'callback', step_index: 1 } });
    expect(waiting.waiting_payload.resume_url).toMatch(new RegExp(`^${f.ctx.config.publicBaseUrl}/v1/resume/rsm_[A-Za-z0-9_-]{43}$`));
    const expires = new Date(waiting.waiting_expires_at).getTime();
    expect(expires - new Date(waiting.step_executions[1].started_at).getTime()).toBe(600_000);
    expect(f.target.received.map((r) => r.url)).toEqual(['/start']);

    const resumed = await publicPost(waiting.waiting_payload.resume_url, { ref: 'r-1', extra: true });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ resumed: true, execution_id: id });
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done.status).toBe('succeeded');
    expect(f.target.received.map((r) => r.url)).toEqual(['/start', '/finish?ref=r-1']);
    expect(done.step_executions[1]).toMatchObject({ status: 'succeeded', decision: 'resumed', input: { ref: 'r-1', extra: true }, output: { ref: 'r-1', extra: true }, extracted: { ref: 'r-1' } });

    const again = await publicPost(waiting.waiting_payload.resume_url, { ref: 'r-2' });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
    expect((await publicPost(`${f.ctx.config.publicBaseUrl}/v1/resume/rsm_unknown`, {})).status).toBe(404);
  });

  it('fails the run with WAIT_TIMEOUT when no call comes in time, after which the resume URL is dead', async () => {
    const job = await f.createJob(aWorkflow([waitStep('callback', { timeout_seconds: 1 }), httpStep('never', `${f.target.url}/never`)]));
    const id = await f.runNow(job.id);
    const waiting = await f.until(id, 'waiting');
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done).toMatchObject({ status: 'failed', error_class: 'WAIT_TIMEOUT' });
    expect(done.dead_lettered_at).not.toBeNull();
    expect(done.step_executions[0]).toMatchObject({ status: 'failed', decision: 'timed_out', error_class: 'WAIT_TIMEOUT' });
    // Timed out at its time, within a scheduler tick or two.
    expect(new Date(done.finished_at).getTime() - new Date(waiting.waiting_expires_at).getTime()).toBeLessThan(1_500);
    expect((await publicPost(waiting.waiting_payload.resume_url, {})).status).toBe(404);
    expect(f.target.received).toHaveLength(0);
  });

  it('goes on with a null payload when the wait times out with on_timeout continue', async () => {
    const job = await f.createJob(aWorkflow([waitStep('callback', { timeout_seconds: 1, on_timeout: 'continue', extract: { ref: '$.ref' } }), httpStep('after', `${f.target.url}/after?ref={{context.ref}}`)]));
    const done = await f.until(await f.runNow(job.id), 'succeeded', 'failed');
    expect(done.status).toBe('succeeded');
    expect(done.step_executions[0]).toMatchObject({ status: 'succeeded', decision: 'timed_out', output: null, extracted: { ref: null } });
    expect(f.target.received.map((r) => r.url)).toEqual(['/after?ref=']);
  });

  it('completes a webhook wait with a null payload on a manual resume', async () => {
    const job = await f.createJob(aWorkflow([waitStep('callback'), httpStep('after', `${f.target.url}/after`)]));
    const id = await f.runNow(job.id);
    await f.until(id, 'waiting');
    const resumed = await f.post(`/v1/executions/${id}/resume`);
    expect(resumed.status).toBe(200);
    const done = await f.until(id, 'succeeded');
    expect(done.step_executions[0]).toMatchObject({ status: 'succeeded', decision: 'resumed', input: null, output: null });
  });
});

describe('approval', () => {
  const approvalJob = (extra: Record<string, unknown> = {}) =>
    aWorkflow([
      httpStep('build', `${f.target.url}/build`, { extract: { version: '$.version' } }),
      approvalStep('review', 'Deploy version {{context.version}}?', { timeout_seconds: 600, ...extra }),
      httpStep('deploy', `${f.target.url}/deploy?v={{context.version}}`),
    ]);

  beforeEach(() => {
    f.target.handle((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"version":"1.2.3"}');
    });
  });

  it('waits for a decision with review, approve and reject URLs, and continues once approved', async () => {
    const job = await f.createJob(approvalJob());
    const id = await f.runNow(job.id);
    const waiting = await f.until(id, 'waiting');
    const base = f.ctx.config.publicBaseUrl;
    expect(waiting.waiting_reason).toBe('approval');
    const payload = waiting.waiting_payload;
    expect(payload).toMatchObject({ step_id: 'review', step_index: 1, message: 'Deploy version 1.2.3?' });
    expect(payload.review_url).toMatch(new RegExp(`^${base}/v1/approvals/apr_[A-Za-z0-9_-]{43}$`));
    expect(payload.approve_url).toBe(`${payload.review_url}/approve`);
    expect(payload.reject_url).toBe(`${payload.review_url}/reject`);

    const details = await request(f.app).get(pathOf(payload.review_url));
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      status: 'pending',
      execution_id: id,
      job: { id: job.id, name: 'workflow' },
      step_id: 'review',
      step_index: 1,
      message: 'Deploy version 1.2.3?',
      previous_steps: [{ step_id: 'build', type: 'http', status: 'succeeded', status_code: 200 }],
    });

    const approved = await publicPost(payload.approve_url, { comment: 'ship it' });
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ status: 'approved', execution_id: id });
    // The audit log names the holder of the link as a public caller.
    const audit = await f.get(`/v1/audit-events?action=approval.approved&target_id=${id}`);
    expect(audit.body.data).toEqual([expect.objectContaining({ action: 'approval.approved', target_type: 'execution', target_id: id, actor: { type: 'public', token_id: null, name: null } })]);
    for (const url of [payload.approve_url, payload.reject_url]) {
      const late = await publicPost(url);
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('already_decided');
    }
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done.status).toBe('succeeded');
    expect(f.target.received.map((r) => r.url)).toEqual(['/build', '/deploy?v=1.2.3']);
    expect(done.step_executions[1]).toMatchObject({ status: 'succeeded', decision: 'approved', output: { decision: 'approved', approved: true, input: { comment: 'ship it' } } });
    expect((await request(f.app).get(pathOf(payload.review_url))).body).toMatchObject({ status: 'approved', execution_status: 'succeeded' });
  });

  it('fails the run with APPROVAL_REJECTED when rejected', async () => {
    const job = await f.createJob(approvalJob());
    const id = await f.runNow(job.id);
    const { waiting_payload: payload } = await f.until(id, 'waiting');
    const rejected = await publicPost(payload.reject_url);
    expect(rejected.body).toEqual({ status: 'rejected', execution_id: id });
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done).toMatchObject({ status: 'failed', error_class: 'APPROVAL_REJECTED' });
    expect(done.step_executions[1]).toMatchObject({ status: 'failed', decision: 'rejected', error_class: 'APPROVAL_REJECTED' });
    expect((await request(f.app).get(pathOf(payload.review_url))).body.status).toBe('rejected');
    expect(f.target.received.map((r) => r.url)).toEqual(['/build']);
  });

  it('fails the run with APPROVAL_EXPIRED when nobody decides in time; a late decision is 409', async () => {
    const job = await f.createJob(approvalJob({ timeout_seconds: 1 }));
    const id = await f.runNow(job.id);
    const { waiting_payload: payload } = await f.until(id, 'waiting');
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done).toMatchObject({ status: 'failed', error_class: 'APPROVAL_EXPIRED' });
    expect((await request(f.app).get(pathOf(payload.review_url))).body.status).toBe('expired');
    const late = await publicPost(payload.approve_url);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('already_decided');
  });

  it('continues when an approval with on_timeout approve expires', async () => {
    const job = await f.createJob(approvalJob({ timeout_seconds: 1, on_timeout: 'approve' }));
    const done = await f.until(await f.runNow(job.id), 'succeeded', 'failed');
    expect(done.status).toBe('succeeded');
    expect(done.step_executions[1]).toMatchObject({ status: 'succeeded', decision: 'expired', output: { decision: 'expired', approved: true } });
  });

  it('reads decisions up to 64 KiB and resumes up to 1 MiB, each endpoint with its own limit', async () => {
    const job = await f.createJob(approvalJob());
    const { waiting_payload: payload } = await f.until(await f.runNow(job.id), 'waiting');
    const big = await publicPost(payload.approve_url, { comment: 'x'.repeat(64 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'payload_too_large', message: 'request body is larger than 64 KiB' });
    expect((await request(f.app).get(pathOf(payload.review_url))).body.status).toBe('pending');

    const wait = await f.createJob(aWorkflow([waitStep('callback')]));
    const { waiting_payload: waiting } = await f.until(await f.runNow(wait.id), 'waiting');
    const resume = await request(f.app).post(pathOf(waiting.resume_url)).type('application/json').send(JSON.stringify({ big: 'x'.repeat(1024 * 1024) }));
    expect(resume.status).toBe(413);
    expect(resume.body.error.message).toBe('request body is larger than 1 MiB');
    // An unknown token is refused before its body is read.
    expect((await request(f.app).post('/v1/resume/rsm_any').type('application/json').send(JSON.stringify({ big: 'x'.repeat(1024 * 1024) }))).status).toBe(404);
  });

  it('answers 404 for an unknown approval token, and 409 to a manual resume of an approval wait', async () => {
    expect((await request(f.app).get('/v1/approvals/apr_nope')).status).toBe(404);
    expect((await request(f.app).post('/v1/approvals/apr_nope/approve')).status).toBe(404);
    const job = await f.createJob(approvalJob());
    const id = await f.runNow(job.id);
    await f.until(id, 'waiting');
    const resumed = await f.post(`/v1/executions/${id}/resume`);
    expect(resumed.status).toBe(409);
    expect(resumed.body.error.code).toBe('invalid_state');
  });
});

describe('max_workflow_duration_seconds', () => {
  it('fails a run that is still waiting at its deadline with WORKFLOW_TIMEOUT', async () => {
    // A wait without a timeout lasts until the deadline (one with a longer timeout is refused at save).
    const job = await f.createJob(aWorkflow([waitStep('long')], { max_workflow_duration_seconds: 2 }));
    const id = await f.runNow(job.id);
    const waiting = await f.until(id, 'waiting');
    expect(new Date(waiting.waiting_expires_at).getTime() - new Date(waiting.started_at).getTime()).toBe(2_000);
    const done = await f.until(id, 'succeeded', 'failed');
    expect(done).toMatchObject({ status: 'failed', error_class: 'WORKFLOW_TIMEOUT' });
    expect(done.step_executions[0]).toMatchObject({ status: 'failed', error_class: 'WORKFLOW_TIMEOUT' });
  });

  it('cuts an http step at the run deadline and fails the run with WORKFLOW_TIMEOUT', async () => {
    const job = await f.createJob(aWorkflow([httpStep('slow', `${f.target.url}/slow`), httpStep('after', `${f.target.url}/after`)], { max_workflow_duration_seconds: 1 }));
    // /slow never answers: only the run's deadline can end the call.
    f.target.handle((req, res) => void (req.url !== '/slow' && res.end('ok')));
    const done = await f.until(await f.runNow(job.id), 'succeeded', 'failed');
    // The call was cut at the deadline (its own timeout is 30 s), and the run failed there.
    expect(done).toMatchObject({ status: 'failed', error_class: 'WORKFLOW_TIMEOUT' });
    expect(done.step_executions[0].attempts[0]).toMatchObject({ status: 'TIMEOUT' });
    expect(f.target.received.map((r) => r.url)).toEqual(['/slow']);
  });
});

describe('manual park and resume', () => {
  it('parks a run after the step in flight and resumes it at the next step', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    f.target.handle(async (req, res) => {
      if (req.url === '/first') await held;
      res.end('ok');
    });
    const job = await f.createJob(aWorkflow([httpStep('first', `${f.target.url}/first`), httpStep('second', `${f.target.url}/second`)]));
    const id = await f.runNow(job.id);
    await f.until(id, 'running');
    await waitFor(() => f.target.received.length > 0, { what: 'the first step to call' });
    const parked = await f.post(`/v1/executions/${id}/park`);
    expect(parked.status).toBe(202);
    release();
    const waiting = await f.until(id, 'waiting');
    expect(waiting).toMatchObject({ waiting_reason: 'manual', step_executions: [{ step_id: 'first', status: 'succeeded' }] });
    // The run's deadline is the park's timer.
    expect(new Date(waiting.waiting_expires_at).getTime() - new Date(waiting.started_at).getTime()).toBe(1_800_000);
    expect(f.target.received.map((r) => r.url)).toEqual(['/first']);

    expect((await f.post(`/v1/executions/${id}/resume`)).status).toBe(200);
    const done = await f.until(id, 'succeeded');
    expect(done.step_executions.map((s: any) => s.step_id)).toEqual(['first', 'second']);
    expect(f.target.received.map((r) => r.url)).toEqual(['/first', '/second']);
  });
});
