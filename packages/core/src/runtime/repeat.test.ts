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
