import { HeldAttempts, type HeldAttempt } from './held-attempts.js';

const started: { item: HeldAttempt; at: number }[] = [];
const held = new HeldAttempts((items) => items.forEach((item) => started.push({ item, at: Date.now() })), 3);

afterEach(() => {
  held.release();
  started.length = 0;
});

it('starts each held attempt at its time, never before', async () => {
  const runAt = Date.now() + 30;
  expect(held.hold({ executionId: 'exe_a', attempt: 1, runAt })).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 80));
  expect(started).toHaveLength(1);
  expect(started[0].at).toBeGreaterThanOrEqual(runAt);
  expect(held.size).toBe(0);
});

it('starts attempts due at the same moment together, in the order they were held', async () => {
  const runAt = Date.now() + 30;
  held.hold({ executionId: 'exe_a', attempt: 1, runAt });
  held.hold({ executionId: 'exe_b', attempt: 1, runAt: runAt + 20 });
  held.hold({ executionId: 'exe_c', attempt: 1, runAt });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(started.map((s) => s.item.executionId)).toEqual(['exe_a', 'exe_c', 'exe_b']);
  expect(started[0].at).toBe(started[1].at);
  expect(started[2].at).toBeGreaterThanOrEqual(runAt + 20);
});

it('keeps one place for an attempt held twice, and refuses past its limit', () => {
  const runAt = Date.now() + 10_000;
  expect(held.hold({ executionId: 'exe_a', attempt: 1, runAt })).toBe(true);
  expect(held.hold({ executionId: 'exe_a', attempt: 1, runAt })).toBe(true);
  expect(held.hold({ executionId: 'exe_a', attempt: 2, runAt })).toBe(true);
  expect(held.hold({ executionId: 'exe_b', attempt: 1, runAt: runAt + 5 })).toBe(true);
  expect(held.size).toBe(3);
  expect(held.hold({ executionId: 'exe_c', attempt: 1, runAt })).toBe(false);
  expect(held.release()).toHaveLength(3);
});

it('hands back what it holds and starts none of it', async () => {
  const runAt = Date.now() + 20;
  held.hold({ executionId: 'exe_a', attempt: 1, runAt });
  expect(held.release()).toEqual([{ executionId: 'exe_a', attempt: 1, runAt }]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(started).toHaveLength(0);
});
