import { AppError, createJob, createSecret, runNow, updateSecret } from '@cronsvc/core';
import { aCronJob, aJob, aOneTimeExecution, finishedExecution, type TargetServer, type TestContext } from '@cronsvc/core/testing';
import { useExecutorFixture } from './executor-fixture.js';

// Masking secrets must cost little however the target answers: a job at the limits (64 KiB of
// long secrets, a 1 MiB body echoing them) is recorded well within its lease, by the executor
// that sent it, with nothing of a secret left in what is stored.

let ctx: TestContext;
let target: TargetServer;
let workspaceId: string;

// A lease long enough that a busy machine (the whole suite on two cores) does not lapse it.
const fixture = useExecutorFixture({ env: { EXECUTION_LEASE_MS: '6000' }, executor: false });
beforeAll(() => ({ ctx, target, workspaceId } = fixture));

const finished = (executionId: string) => finishedExecution(ctx.runtime, workspaceId, executionId, { timeoutMs: 45_000 });

// Four secrets of 16 KiB, 64 KiB in all (the most a job may reference): long runs of "a" of
// different lengths, each ending differently. One regular expression alternating them took
// about 11 s to mask a 1 MiB body of "a" on this machine, past the 6 s lease of this test.
const names = ['BIG_0', 'BIG_1', 'BIG_2', 'BIG_3'];
const values = names.map((_, i) => `${'a'.repeat(16 * 1024 - 17 - i)}b${String(i).padStart(15 + i, '0')}`);

it('records an attempt at the limits once, well within its lease, with every secret masked', async () => {
  for (const [i, name] of names.entries()) await createSecret(ctx.runtime, workspaceId, { name, value: values[i] });
  expect(values.reduce((sum, v) => sum + Buffer.byteLength(v), 0)).toBeLessThanOrEqual(64 * 1024);
  // Two executor processes: one that stalled past its lease would see the other send the request again.
  ctx.spawnApp('executor');
  ctx.spawnApp('executor');
  let answeredAt = 0;
  target.handle((_req, res) => {
    const echoed = `${'x'.repeat(45)}${values.join(' ')} `;
    res.end(echoed.padEnd(1024 * 1024, 'a'), () => (answeredAt = Date.now()));
  });
  const { executionId } = await aOneTimeExecution(ctx.runtime, workspaceId, {
    request: {
      url: `${target.url}/limits`,
      method: 'POST',
      body: Object.fromEntries(names.map((name) => [name, `{{secret.${name}}}`])),
      response_assertions: { text: [{ op: 'contains', value: 'never there' }] },
    },
  });
  const exe = await finished(executionId);

  expect(target.received.filter((r) => r.url === '/limits')).toHaveLength(1);
  expect(exe.attempts).toHaveLength(1);
  const [attempt] = exe.attempts;
  // Recorded well within the lease: no renewal was even due (they come every lease / 3).
  expect(attempt.createdAt.getTime() - answeredAt).toBeLessThan(ctx.config.executionLeaseMs / 3);
  expect(exe.errorClass).toBe('RESPONSE_MISMATCH');
  // The assertion's quote of the body starts 45 characters before the first secret and ends inside it.
  expect(exe.errorMessage).toContain(`${'x'.repeat(45)}[secret]`);
  const stored = [attempt.bodyPreview ?? '', exe.errorMessage ?? '', JSON.stringify(exe.finalResponse)];
  for (const text of stored) {
    // Compared as booleans: a failure must not print 64 KiB.
    expect(/a{100}b0/.test(text)).toBe(false);
    expect(text.includes('x'.repeat(45) + 'a')).toBe(false);
  }
  expect(attempt.bodyPreview!.startsWith(`${'x'.repeat(45)}[secret] [secret] [secret] [secret] aaa`)).toBe(true);
}, 60_000);

it('refuses a job whose secrets add up to more than 64 KiB, naming them', async () => {
  await createSecret(ctx.runtime, workspaceId, { name: 'ONE_MORE', value: 'x'.repeat(100) });
  const body = Object.fromEntries([...names, 'ONE_MORE'].map((name) => [name, `{{secret.${name}}}`]));
  const attempt = createJob(ctx.runtime, workspaceId, aCronJob({ request: { url: `${target.url}/x`, method: 'POST', body } }));
  await expect(attempt).rejects.toBeInstanceOf(AppError);
  await expect(attempt).rejects.toMatchObject({
    code: 'validation_failed',
    details: [{ path: 'request', message: expect.stringMatching(/add up to 65632 bytes, more than the 65536 bytes .*ONE_MORE \(100 bytes\)/) }],
  });
});

it('fails an attempt without a request when a secret grew past the limit after the job was saved', async () => {
  const secret = await createSecret(ctx.runtime, workspaceId, { name: 'GROWS', value: 'small value' });
  const body = Object.fromEntries(['BIG_0', 'BIG_1', 'BIG_2', 'GROWS'].map((name) => [name, `{{secret.${name}}}`]));
  const job = await aJob(ctx.runtime, workspaceId, { request: { url: `${target.url}/grows`, method: 'POST', body } });
  await updateSecret(ctx.runtime, workspaceId, secret.id, { value: 'y'.repeat(20 * 1024) });
  const execution = await runNow(ctx.runtime, workspaceId, job.id);
  const exe = await finished(execution.id);
  expect(exe).toMatchObject({ status: 'failed', errorClass: 'SECRET_NOT_FOUND', attemptCount: 1 });
  expect(exe.errorMessage).toMatch(/more than the 65536 bytes .*a secret grew since the job was saved/);
  expect(target.received.some((r) => r.url === '/grows')).toBe(false);
});
