import { waitFor } from '../../test/wait-for.js';
import { repeat } from './repeat.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('runs again at once while the task reports more work, then waits the interval', async () => {
  const runs: number[] = [];
  let more = 3;
  const stop = repeat('t', async () => (runs.push(Date.now()), --more > 0), 60_000, () => undefined);
  await waitFor(() => runs.length >= 3, { intervalMs: 5, what: 'three runs' });
  // "More" twice, then not: the fourth run is a minute away, not within the next 100 ms.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await stop();
  expect(runs).toHaveLength(3);
  expect(runs[2] - runs[0]).toBeLessThan(1_000);
});

it('passes a failure to onError and goes on after the interval', async () => {
  const errors: string[] = [];
  let calls = 0;
  const stop = repeat('flaky', async () => {
    calls += 1;
    if (calls === 1) throw new Error('boom');
  }, 5, (name, error) => errors.push(`${name}: ${(error as Error).message}`));
  await waitFor(() => calls >= 2, { intervalMs: 5, what: 'a run after the failure' });
  await stop();
  expect(errors).toEqual(['flaky: boom']);
  expect(calls).toBeGreaterThanOrEqual(2);
});

it('stop() waits for the run in progress and no run starts after it', async () => {
  let release: () => void = () => undefined;
  let calls = 0;
  let finished = false;
  const stop = repeat('slow', async () => {
    calls += 1;
    await new Promise<void>((resolve) => (release = resolve));
    finished = true;
    return true;
  }, 0, () => undefined);
  let stopDone = false;
  const stopped = stop().then(() => (stopDone = true));
  await tick();
  expect(stopDone).toBe(false);
  release();
  await stopped;
  expect(finished).toBe(true);
  await tick();
  expect(calls).toBe(1);
});

it('after a failure untilRetry answers for, runs again when its promise resolves, not after the interval, and leaves onError out', async () => {
  const errors: unknown[] = [];
  let calls = 0;
  let back: () => void = () => undefined;
  const stop = repeat('fire', async () => {
    calls += 1;
    if (calls === 1) throw new Error('the database is away');
  }, 60_000, (_name, error) => errors.push(error), { untilRetry: () => new Promise<void>((resolve) => (back = resolve)) });
  await waitFor(() => calls === 1, { intervalMs: 5, what: 'the first run' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(calls).toBe(1);
  back();
  await waitFor(() => calls === 2, { intervalMs: 5, what: 'the run once the database is back' });
  await stop();
  expect(errors).toEqual([]);
});

it('a failure untilRetry does not answer for goes to onError as before', async () => {
  const errors: string[] = [];
  let calls = 0;
  const stop = repeat('fire', async () => {
    calls += 1;
    if (calls === 1) throw new Error('a bug');
  }, 5, (_name, error) => errors.push((error as Error).message), { untilRetry: () => undefined });
  await waitFor(() => calls >= 2, { intervalMs: 5, what: 'a run after the interval' });
  await stop();
  expect(errors).toEqual(['a bug']);
});
