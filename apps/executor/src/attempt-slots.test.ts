import { AttemptSlots } from './attempt-slots.js';

it('runs at most `size` at once and lets the waiters in first come, first served', async () => {
  const slots = new AttemptSlots(2);
  const started: number[] = [];
  const finish: (() => void)[] = [];
  const runs = [1, 2, 3, 4].map((n) =>
    slots.run(async () => {
      started.push(n);
      await new Promise<void>((resolve) => finish.push(resolve));
      return n;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([1, 2]);
  finish.shift()!();
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([1, 2, 3]);
  while (finish.length > 0 || started.length < 4) {
    finish.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await Promise.all(runs)).toEqual([1, 2, 3, 4]);
});

it('gives the slot back when the work throws', async () => {
  const slots = new AttemptSlots(1);
  await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(await slots.run(async () => 'next')).toBe('next');
});
