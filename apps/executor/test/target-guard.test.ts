import { AppError, createJob, createSecret, updateJob, type ExecutionWithAttempts } from '@cronsvc/core';
import { aCronJob, aOneTimeExecution, finishedExecution, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { startExecutor, type Executor } from '../src/executor.js';
import { useExecutorFixture } from './executor-fixture.js';

// docs/SECURITY.md: private, loopback and link-local targets are refused when saved (literal hosts)
// and when called (the resolved address), unless ALLOW_PRIVATE_TARGETS is set.

let ctx: TestContext;
let target: TargetServer;
let executor: Executor | undefined;
let workspaceId: string;
/** The runtime of a service started without ALLOW_PRIVATE_TARGETS. */
let guarded: TestContext['runtime'];

// Registered before the fixture's hooks, so the executor a test started stops before the context closes.
afterAll(() => executor?.stop());
const fixture = useExecutorFixture({ executor: false });
beforeAll(() => {
  ({ ctx, target, workspaceId } = fixture);
  guarded = { ...ctx.runtime, config: { ...ctx.config, allowPrivateTargets: false } };
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const finished = (executionId: string) => finishedExecution(ctx.runtime, workspaceId, executionId);

/** A one_time job saved by a service that allows private targets, so it can point at the local target server. */
async function savedWhileAllowed(request: Record<string, unknown>) {
  return (await aOneTimeExecution(ctx.runtime, workspaceId, { request, retry_policy: { max_attempts: 3 } })).executionId;
}

describe('saving a job while private targets are refused', () => {
  const privateUrls = [
    ['localhost', 'http://localhost:8080/'],
    ['a loopback address', 'http://127.0.0.1/hook'],
    ['a decimal loopback address', 'http://2130706433/'],
    ['an octal loopback address', 'http://0177.0.0.1/'],
    ['IPv6 loopback', 'http://[::1]:9000/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-compatible IPv6 loopback', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible IPv6 public address', 'http://[::8.8.8.8]/'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
  ];
  const cases = ['request.url', 'on_success_url', 'on_failure_url'].flatMap((path) => privateUrls.map(([what, url]) => [path, what, url]));

  it.each(cases)('refuses %s pointing at %s (%s) with 400 validation_failed naming the path', async (path, _what, url) => {
    const body = path === 'request.url' ? aCronJob({ request: { url } }) : aCronJob({ [path]: url });
    const error = await rejection(createJob(guarded, workspaceId, body));
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ path, message: expect.stringMatching(/publicly reachable/) }]);
  });

  it('reports every refused target of one job at once, and stores nothing', async () => {
    const before = await ctx.runtime.db.job.count({ where: { workspaceId } });
    const error = await rejection(
      createJob(guarded, workspaceId, aCronJob({ request: { url: 'http://localhost/' }, on_success_url: 'http://10.0.0.5/', on_failure_url: 'http://[fd00::1]/' })),
    );
    expect(error.details?.map((d) => d.path).sort()).toEqual(['on_failure_url', 'on_success_url', 'request.url']);
    expect(await ctx.runtime.db.job.count({ where: { workspaceId } })).toBe(before);
  });

  it('refuses a private target set by an update, and keeps the job as it was', async () => {
    const { job } = await createJob(guarded, workspaceId, aCronJob({}));
    const error = await rejection(updateJob(guarded, workspaceId, job.id, { on_failure_url: 'http://192.168.1.10/alert' }));
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((d) => d.path)).toEqual(['on_failure_url']);
    const stored = await ctx.runtime.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(stored.onFailureUrl).toBeNull();
  });

  it('accepts public targets', async () => {
    const { job } = await createJob(guarded, workspaceId, aCronJob({ on_success_url: 'https://example.com/ok', on_failure_url: 'http://8.8.8.8/fail' }));
    expect(job.id).toMatch(/^job_/);
  });

  it('accepts the same private targets when ALLOW_PRIVATE_TARGETS is set', async () => {
    const { job } = await createJob(ctx.runtime, workspaceId, aCronJob({ request: { url: 'http://localhost:8080/' }, on_success_url: 'http://169.254.169.254/' }));
    expect(job.id).toMatch(/^job_/);
  });
});

describe('calling a target while private targets are refused', () => {
  beforeAll(() => {
    executor = startExecutor(guarded);
  });
  afterAll(async () => {
    await executor?.stop();
    executor = undefined;
  });

  const expectBlocked = (exe: ExecutionWithAttempts) => {
    expect(exe).toMatchObject({ status: 'failed', attemptCount: 1, errorClass: 'BLOCKED_TARGET', finalResponse: null });
    expect(exe.attempts).toHaveLength(1);
    expect(exe.attempts[0]).toMatchObject({ number: 1, status: 'CONNECTION_ERROR', errorClass: 'BLOCKED_TARGET', statusCode: null });
    expect(exe.deadLetteredAt).not.toBeNull();
    expect(target.received).toHaveLength(0);
  };

  it('refuses a name that resolves to a loopback address at call time, once, without retrying', async () => {
    const executionId = await savedWhileAllowed({ url: `http://localhost:${target.port}/` });
    const exe = await finished(executionId);
    expectBlocked(exe);
    expect(exe.attempts[0].errorMessage).toBe('localhost does not resolve to a public address');
  });

  it('refuses a literal loopback address at call time (saved while private targets were allowed)', async () => {
    const executionId = await savedWhileAllowed({ url: `http://127.0.0.1:${target.port}/` });
    const exe = await finished(executionId);
    expectBlocked(exe);
    expect(exe.attempts[0].errorMessage).toMatch(/127\.0\.0\.1 is not a public address/);
  });

  it('refuses a loopback address that a secret placeholder puts in the host at call time', async () => {
    await createSecret(ctx.runtime, workspaceId, { name: 'target_host', value: '127.0.0.1' });
    // The placeholder hides the host when the job is saved, so the guarded service accepts it.
    const { executionId } = await aOneTimeExecution(guarded, workspaceId, { request: { url: `http://{{secret.target_host}}:${target.port}/` } });
    const exe = await finished(executionId);
    expectBlocked(exe);
  });
});

describe('calling a target while private targets are allowed', () => {
  it('calls the same localhost target and succeeds', async () => {
    executor = startExecutor(ctx.runtime);
    const executionId = await savedWhileAllowed({ url: `http://localhost:${target.port}/` });
    const exe = await finished(executionId);
    expect(exe).toMatchObject({ status: 'succeeded', attemptCount: 1, errorClass: null, finalResponse: { statusCode: 200, bodyPreview: 'ok' } });
    expect(exe.attempts[0]).toMatchObject({ status: 'SUCCESS', statusCode: 200 });
    expect(target.received).toHaveLength(1);
  });
});
