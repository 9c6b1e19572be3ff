import { serializeExecution, type ExecutionWithAttempts } from '@cronsvc/core';
import { answerInTurn, aOneTimeExecution, finishedExecution, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// Response matching (docs/EXECUTIONS.md): response_matcher rules 1-4, response_assertions /
// response_output_template, end to end: executor -> local target server -> recorded execution.

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;

const fixture = useExecutorFixture();
beforeAll(() => ({ ctx, target, workspaceId } = fixture));

/** Answers every request with this status, body and headers. */
function answer(statusCode: number, body: string, headers: Record<string, string> = {}) {
  target.handle((_req, res) => {
    res.writeHead(statusCode, headers);
    res.end(body);
  });
}

/** Runs a one-time job sending `request` to the target, to its end. */
async function run(request: Record<string, unknown>, retry: Record<string, unknown> = { max_attempts: 3 }): Promise<ExecutionWithAttempts> {
  const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, { request: { url: target.url, ...request }, retry_policy: retry });
  return finishedExecution(ctx.runtime, workspaceId, executionId, { timeoutMs: 20_000 });
}

/** A response that failed matching: one HTTP_ERROR attempt, RESPONSE_MISMATCH, no retry. */
function expectMismatch(exe: ExecutionWithAttempts, message: RegExp, statusCode = 200) {
  expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'RESPONSE_MISMATCH' });
  expect(exe.attempts).toHaveLength(1);
  expect(exe.attempts[0]).toMatchObject({ number: 1, status: 'HTTP_ERROR', statusCode, errorClass: 'RESPONSE_MISMATCH' });
  expect(exe.attempts[0].errorMessage).toMatch(message);
  expect(exe.errorMessage).toMatch(message);
  expect(target.received).toHaveLength(1);
}

describe('response_matcher (rules 1-4)', () => {
  it('fails a 200 whose body matches failure_pattern, with one attempt although max_attempts is 3', async () => {
    answer(200, '{"result":"ERROR: quota exceeded"}');
    const exe = await run({ response_matcher: { failure_pattern: 'ERROR:' } });
    expectMismatch(exe, /failure_pattern "ERROR:"/);
    expect(exe.finalResponse).toEqual({ statusCode: 200, bodyPreview: '{"result":"ERROR: quota exceeded"}' });
    expect(exe.deadLetteredAt).not.toBeNull();
  });

  it('succeeds when the body does not match failure_pattern', async () => {
    answer(200, '{"result":"fine"}');
    const exe = await run({ response_matcher: { failure_pattern: 'ERROR:' } });
    expect(exe).toMatchObject({ status: 'succeeded', attemptCount: 1, errorClass: null });
  });

  it('fails when failure_pattern matches even though success_pattern matches too', async () => {
    answer(200, 'status: ok, but ERROR: disk full');
    const exe = await run({ response_matcher: { success_pattern: 'status: ok', failure_pattern: 'ERROR:' } });
    expectMismatch(exe, /failure_pattern/);
  });

  it('fails a 200 whose body has no match for success_pattern', async () => {
    answer(200, 'status: pending');
    const exe = await run({ response_matcher: { success_pattern: 'status: (ok|done)' } });
    expectMismatch(exe, /does not match success_pattern "status: \(ok\|done\)"/);
  });

  it('honours the i flag of success_pattern', async () => {
    answer(200, 'STATUS: OK');
    const withFlag = await run({ response_matcher: { success_pattern: 'status: ok', flags: 'i' } });
    expect(withFlag).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    target.received.length = 0;
    const withoutFlag = await run({ response_matcher: { success_pattern: 'status: ok' } });
    expectMismatch(withoutFlag, /success_pattern/);
  });

  it('never turns a 500 into success: a 500 matching success_pattern is retried as HTTP_5XX', async () => {
    answerInTurn(target, [500, 200], 'status: ok');
    const exe = await run({ response_matcher: { success_pattern: 'status: ok' } });
    expect(exe.attempts.map((a) => [a.number, a.status, a.statusCode, a.errorClass])).toEqual([
      [1, 'HTTP_ERROR', 500, 'HTTP_5XX'],
      [2, 'SUCCESS', 200, null],
    ]);
    expect(exe.status).toBe('succeeded');
  });

  it('fails with HTTP_5XX, not a success, when every attempt is a 500 matching success_pattern', async () => {
    answer(500, 'status: ok');
    const exe = await run({ response_matcher: { success_pattern: 'status: ok' } }, { max_attempts: 2 });
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 2, errorClass: 'HTTP_5XX' });
    expect(exe.attempts.map((a) => a.errorClass)).toEqual(['HTTP_5XX', 'HTTP_5XX']);
    expect(target.received).toHaveLength(2);
  });

  it('never turns a non-retryable 404 into success: it fails at once as HTTP_4XX', async () => {
    answer(404, 'status: ok');
    const exe = await run({ response_matcher: { success_pattern: 'status: ok' } });
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'HTTP_4XX' });
    expect(exe.attempts[0]).toMatchObject({ status: 'HTTP_ERROR', statusCode: 404, errorClass: 'HTTP_4XX' });
  });

  it('finishes a catastrophic pattern (a+)+$ against a 64 KiB "aaaa…b" body', async () => {
    answer(200, `${'a'.repeat(64 * 1024 - 1)}b`);
    const started = Date.now();
    const exe = await run({ response_matcher: { success_pattern: '(a+)+$' } });
    // A backtracking engine would not finish this in the age of the universe; RE2 does it in milliseconds.
    expect(Date.now() - started).toBeLessThan(15_000);
    expectMismatch(exe, /does not match success_pattern "\(a\+\)\+\$"/);
    expect(exe.attempts[0].bodyPreview).toHaveLength(64 * 1024);
  });
});

describe('response_assertions', () => {
  const body = JSON.stringify({ data: { state: 'ready', count: 7, tags: ['a', 'b'] } });
  const headers = { 'Content-Type': 'application/json', 'X-Custom': 'yes' };

  it.each([
    ['status', { status: [{ op: 'eq', value: 200 }] }, { status: [{ op: 'in', value: [201, 202] }] }, /status in \[201,202\]: actual 200/],
    ['json', { json: [{ path: '$.data.count', op: 'gt', value: 5 }, { path: '$.data.tags', op: 'contains', value: 'b' }] }, { json: [{ path: '$.data.state', op: 'eq', value: 'done' }] }, /json \$\.data\.state eq "done": actual "ready"/],
    ['text', { text: [{ op: 'contains', value: '"ready"' }] }, { text: [{ op: 'not_contains', value: 'ready' }] }, /text not_contains "ready"/],
    ['headers', { headers: [{ name: 'X-Custom', op: 'eq', value: 'yes' }] }, { headers: [{ name: 'x-custom', op: 'eq', value: 'no' }] }, /headers x-custom eq "no": actual "yes"/],
  ])('%s: a passing assertion succeeds and a failing one is a RESPONSE_MISMATCH naming it', async (_group, passing, failing, message) => {
    answer(200, body, headers);
    const ok = await run({ response_assertions: passing });
    expect(ok).toMatchObject({ status: 'succeeded', attemptCount: 1, errorClass: null });
    expect(ok.attempts[0]).toMatchObject({ status: 'SUCCESS', errorClass: null });
    target.received.length = 0;
    const bad = await run({ response_assertions: failing });
    expectMismatch(bad, message);
  });

  it('checks a header that is not among the stored response headers', async () => {
    answer(200, body, headers);
    const exe = await run({ response_assertions: { headers: [{ name: 'x-custom', op: 'exists' }] } });
    expect(exe.status).toBe('succeeded');
    expect(exe.attempts[0].responseHeaders).toHaveProperty('content-type', 'application/json');
    expect(exe.attempts[0].responseHeaders).not.toHaveProperty('x-custom');
  });

  it('fails a header assertion on a header the response lacks', async () => {
    answer(200, body, headers);
    const exe = await run({ response_assertions: { headers: [{ name: 'x-missing', op: 'exists' }] } });
    expectMismatch(exe, /headers x-missing exists: header not present/);
  });

  it('reports every failed assertion of every group together, with no retry', async () => {
    answer(200, body, headers);
    const exe = await run({
      response_assertions: {
        status: [{ op: 'eq', value: 200 }],
        json: [{ path: '$.data.count', op: 'lt', value: 3 }],
        headers: [{ name: 'x-custom', op: 'neq', value: 'yes' }],
      },
    });
    expectMismatch(exe, /json \$\.data\.count lt 3: actual 7; headers x-custom neq "yes"/);
    expect(exe.attempts[0].errorMessage).not.toMatch(/status eq/);
  });

  it('fails a json assertion when the body is not JSON', async () => {
    answer(200, 'plain text', { 'Content-Type': 'text/plain' });
    const exe = await run({ response_assertions: { json: [{ path: '$.data', op: 'exists' }] } });
    expectMismatch(exe, /json \$\.data exists: body is not JSON/);
  });

  it('does not let assertions rescue a failed status', async () => {
    answer(404, body, headers);
    const exe = await run({ response_assertions: { status: [{ op: 'eq', value: 404 }] } });
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'HTTP_4XX' });
  });
});

describe('response_output_template', () => {
  const template = {
    id: '$.data.id',
    first: '$.data.items[0]',
    all: '$.data.items[*]',
    source: 'nightly-sync',
    version: 2,
    enabled: true,
    nested: { state: '$.status', missing: '$.nope', note: 'literal' },
  };

  it('stores final_output from JSONPath leaves and keeps literal leaves', async () => {
    answer(200, JSON.stringify({ status: 'ok', data: { id: 'abc-1', items: [10, 20, 30] } }), { 'Content-Type': 'application/json' });
    const exe = await run({ response_output_template: template });
    const expected = {
      id: 'abc-1',
      first: 10,
      all: [10, 20, 30],
      source: 'nightly-sync',
      version: 2,
      enabled: true,
      nested: { state: 'ok', missing: null, note: 'literal' },
    };
    expect(exe.status).toBe('succeeded');
    expect(exe.finalOutput).toEqual(expected);
    expect(serializeExecution(exe).final_output).toEqual(expected);
  });

  it('leaves every JSONPath leaf null, literals kept, when the body is not JSON', async () => {
    answer(200, '<html>not json</html>', { 'Content-Type': 'text/html' });
    const exe = await run({ response_output_template: template });
    expect(exe.status).toBe('succeeded');
    expect(exe.finalOutput).toEqual({
      id: null,
      first: null,
      all: null,
      source: 'nightly-sync',
      version: 2,
      enabled: true,
      nested: { state: null, missing: null, note: 'literal' },
    });
  });

  it('stores no final_output when the job has no template', async () => {
    answer(200, '{"id":"x"}', { 'Content-Type': 'application/json' });
    const exe = await run({});
    expect(exe.status).toBe('succeeded');
    expect(exe.finalOutput).toBeNull();
  });
});
