import { createSecret, runNow } from '@cronsvc/core';
import { aJob, aOneTimeExecution, aOneTimeJob, aWorkflow, finishedExecution, httpStep, waitFor, type ChildApp, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// What a target (or whoever can answer for it) may try against the executor that every
// workspace shares: stall it with costly extraction, make it resend forever with a record that
// cannot be stored, read a secret out of a step's failure message. The executor runs as its own
// process, as in production, so a stall is seen from outside it.

let ctx: TestContext;
let target: TargetServer;
let executor: ChildApp;
let tenant: string;
let bystander: string;

const fixture = useExecutorFixture({ env: { EXECUTION_LEASE_MS: '3000' }, workspace: 'hostile', second: 'bystander', executor: false });
beforeAll(() => {
  ({ ctx, target, workspaceId: tenant, second: { id: bystander } } = fixture);
  executor = ctx.spawnApp('executor');
});

const finished = (workspaceId: string, executionId: string, timeoutMs = 30_000) =>
  finishedExecution(ctx.runtime, workspaceId, executionId, { timeoutMs, what: () => `execution ${executionId} to finish; executor said:\n${executor.output()}` });

async function runWorkflow(workspaceId: string, steps: Record<string, unknown>[]): Promise<string> {
  const job = await aJob(ctx.runtime, workspaceId, aWorkflow(steps));
  return (await runNow(ctx.runtime, workspaceId, job.id)).id;
}

const json = (res: import('node:http').ServerResponse, body: unknown) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
};

describe('a step whose extraction is as costly as the limits allow', () => {
  it("does not hold up another workspace's jobs: each is called within 1.5 s while the step's answer is judged", async () => {
    // 40,000 items in well under the 1 MiB read cap, and 50 + 50 filters over them: about
    // 200 ms each when every path has a budget of its own.
    const items = Array.from({ length: 40_000 }, (_, i) => ({ v: i }));
    const filters = (prefix: string) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${prefix}${i}`, `$.items[?(@.v > ${i} && @.v != @root.items.length)]`]));
    let answered = false;
    target.handle((req, res) => {
      if (req.url !== '/big') return void res.end('ok');
      res.on('finish', () => (answered = true));
      json(res, { items });
    });
    const id = await runWorkflow(tenant, [httpStep('big', `${target.url}/big`, { extract: filters('a'), extract_to_context: filters('b') })]);
    await waitFor(() => answered, { what: 'the big answer to be sent', timeoutMs: 20_000 });

    // Another workspace's one_time jobs, one every 250 ms for 4 s from the answer: some are
    // created while the executor judges the answer, whenever exactly that is.
    const created: { url: string; at: number }[] = [];
    for (let i = 0; i < 16; i += 1) {
      const url = `/bystander-${i}`;
      await aJob(ctx.runtime, bystander, aOneTimeJob({ request: { url: `${target.url}${url}` } }));
      created.push({ url, at: Date.now() });
      await new Promise((r) => setTimeout(r, 250));
    }
    const late: { url: string; waitedMs: number }[] = [];
    for (const { url, at } of created) {
      const called = await waitFor(() => target.received.find((r) => r.url === url), { what: `${url} to be called`, timeoutMs: 40_000 });
      if (called.at - at >= 1_500) late.push({ url, waitedMs: called.at - at });
    }
    expect(late).toEqual([]);

    // The step still ends, and what its paths could not finish within the step's one budget is reported, not dropped.
    const exe = await finished(tenant, id);
    expect(exe.status).toBe('failed');
    expect(exe.errorMessage).toMatch(/evaluation budget/);
  }, 90_000);
});

describe('a target answering NUL characters', () => {
  it('records a request job whose output template reads a value holding \\u0000, once, and ends it', async () => {
    target.handle((_req, res) => json(res, { name: 'a\u0000b', nested: { 'k\u0000': ['\u0000'] } }));
    const { executionId } = await aOneTimeExecution(ctx.runtime, tenant, {
      request: { url: `${target.url}/nul-json`, response_output_template: { name: '$.name', nested: '$.nested' } },
      retry_policy: { max_attempts: 2 },
    });
    const exe = await finished(tenant, executionId);
    expect(exe.status).toBe('succeeded');
    expect(exe.finalOutput).toEqual({ name: 'a\uFFFDb', nested: { 'k\uFFFD': ['\uFFFD'] } });
    expect(target.received.filter((r) => r.url === '/nul-json')).toHaveLength(1);
  }, 45_000);

  it('records a workflow step whose text and JSON answers hold NUL, extracting what it holds', async () => {
    target.handle((req, res) => {
      if (req.url === '/nul-text') return void res.end('text\u0000with a NUL');
      json(res, { id: 'x\u0000y' });
    });
    const id = await runWorkflow(tenant, [
      httpStep('text', `${target.url}/nul-text`),
      httpStep('json', `${target.url}/nul-json-step`, { extract: { id: '$.id' }, extract_to_context: { saved: '$.id' } }),
    ]);
    const exe = await finished(tenant, id);
    expect(exe.status).toBe('succeeded');
    expect(target.received.map((r) => r.url)).toEqual(['/nul-text', '/nul-json-step']);
    expect(exe.stepExecutions[1].extracted).toEqual({ id: 'x\uFFFDy', saved: 'x\uFFFDy' });
  }, 45_000);
});

describe('a workflow step whose assertion fails on a body echoing a secret', () => {
  it('quotes the body with the secret masked, even where the quote cuts the secret', async () => {
    const secret = 'Zq9-secret-value-0123456789-abcdefghij';
    await createSecret(ctx.runtime, tenant, { name: 'STEP_KEY', value: secret });
    target.handle((req, res) => void res.end(`${'x'.repeat(45)}${req.headers['x-key']} and more`));
    const id = await runWorkflow(tenant, [
      httpStep('echo', `${target.url}/echo`, {
        headers: { 'X-Key': '{{secret.STEP_KEY}}' },
        response_assertions: { text: [{ op: 'contains', value: 'never there' }] },
      }),
    ]);
    const exe = await finished(tenant, id);
    expect(exe.errorClass).toBe('RESPONSE_MISMATCH');
    const stored = [exe.errorMessage ?? '', ...exe.stepExecutions.flatMap((s) => [s.errorMessage ?? '', ...s.attempts.map((a) => `${a.errorMessage} ${a.bodyPreview}`)])];
    // The message's own quote of the body, masked before it was cut to 60 characters.
    expect(exe.errorMessage).toContain(`${'x'.repeat(45)}[secret]`);
    // A 60-character quote starting 45 characters before the secret would show its first 14.
    for (const text of stored) expect(text).not.toContain(secret.slice(0, 8));
  }, 45_000);
});

describe('an attempt whose outcome cannot be stored', () => {
  // Stand-ins for any record PostgreSQL refuses: triggers on the attempt tables that fail the
  // insert of an answer holding a marker, as a data error (refused whatever the try) or as an
  // internal error (which a later try might get past).
  beforeAll(async () => {
    await ctx.runtime.pool.query(`
      CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.body_preview LIKE '%unstorable%' THEN RAISE EXCEPTION 'value refused' USING ERRCODE = '22000'; END IF;
        IF NEW.body_preview LIKE '%unrecordable%' THEN RAISE EXCEPTION 'record refused' USING ERRCODE = 'XX000'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION refuse_marked();
      CREATE TRIGGER refuse_marked BEFORE INSERT ON step_attempts FOR EACH ROW EXECUTE FUNCTION refuse_marked();`);
  });

  const oneTime = async (path: string, extra: Record<string, unknown>) =>
    (await aOneTimeExecution(ctx.runtime, tenant, { request: { url: `${target.url}${path}` }, ...extra })).executionId;

  it('refused as data: fails the execution RECORD_FAILED after its one call, with no retry', async () => {
    target.handle((_req, res) => void res.end('an unstorable answer'));
    const exe = await finished(tenant, await oneTime('/unstorable', { retry_policy: { max_attempts: 3 } }));
    expect(exe).toMatchObject({ status: 'failed', errorClass: 'RECORD_FAILED' });
    expect(exe.deadLetteredAt).not.toBeNull();
    expect(exe.errorMessage).toMatch(/could not be stored \(value refused\)/);
    expect(exe.attempts.map((a) => [a.number, a.errorClass, a.bodyPreview])).toEqual([[1, 'RECORD_FAILED', null]]);
    expect(target.received.filter((r) => r.url === '/unstorable')).toHaveLength(1);
  }, 45_000);

  it('refused otherwise at every try: sends it five times at most, then fails the execution RECORD_FAILED', async () => {
    // The scheduler's reconciler queues the execution again each time its lease runs out.
    ctx.spawnApp('scheduler');
    target.handle((_req, res) => void res.end('an unrecordable answer'));
    const exe = await finished(tenant, await oneTime('/unrecordable', { retry_policy: { max_attempts: 10 } }), 60_000);
    expect(exe).toMatchObject({ status: 'failed', errorClass: 'RECORD_FAILED' });
    expect(exe.errorMessage).toMatch(/started 5 times and its outcome was never stored/);
    expect(target.received.filter((r) => r.url === '/unrecordable')).toHaveLength(5);
  }, 75_000);

  it('in a workflow step: fails the run RECORD_FAILED after the one call', async () => {
    target.handle((_req, res) => void res.end('an unstorable answer'));
    const id = await runWorkflow(tenant, [httpStep('refused', `${target.url}/unstorable-step`), httpStep('never', `${target.url}/never`)]);
    const exe = await finished(tenant, id);
    expect(exe).toMatchObject({ status: 'failed', errorClass: 'RECORD_FAILED' });
    expect(exe.stepExecutions.map((s) => [s.stepId, s.status, s.errorClass])).toEqual([['refused', 'failed', 'RECORD_FAILED']]);
    expect(target.received.map((r) => r.url)).toEqual(['/unstorable-step']);
  }, 45_000);
});
