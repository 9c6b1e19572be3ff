import { AttemptSlots } from './attempt-slots.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Starts `key:n` work items that each wait until finished by the test. */
function workload(slots: AttemptSlots) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const run = (name: string) =>
    slots.run(name.split(':')[0], async () => {
      started.push(name);
      await new Promise<void>((resolve) => finish.set(name, resolve));
      return name;
    });
  return { started, run, finish: (name: string) => finish.get(name)!() };
}

it('runs at most `size` at once; one workspace waits first come, first served', async () => {
  const slots = new AttemptSlots(2);
  const { started, run, finish } = workload(slots);
  const runs = ['a:1', 'a:2', 'a:3', 'a:4'].map(run);
  await turn();
  expect(started).toEqual(['a:1', 'a:2']);
  finish('a:1');
  await turn();
  expect(started).toEqual(['a:1', 'a:2', 'a:3']);
  for (const name of ['a:2', 'a:3']) finish(name);
  await turn();
  finish('a:4');
  expect(await Promise.all(runs)).toEqual(['a:1', 'a:2', 'a:3', 'a:4']);
});

it('hands freed slots to the waiting workspaces in turn, not in order of arrival', async () => {
  const slots = new AttemptSlots(1);
  const { started, run, finish } = workload(slots);
  const runs = ['a:1', 'a:2', 'a:3', 'a:4', 'b:1', 'c:1', 'b:2'].map(run);
  for (const name of ['a:1', 'a:2', 'b:1', 'c:1', 'a:3', 'b:2', 'a:4']) {
    await turn();
    expect(started[started.length - 1]).toBe(name);
    finish(name);
  }
  await Promise.all(runs);
  expect(started).toEqual(['a:1', 'a:2', 'b:1', 'c:1', 'a:3', 'b:2', 'a:4']);
});

it('gives the slot back when the work throws', async () => {
  const slots = new AttemptSlots(1);
  await expect(slots.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(await slots.run('b', async () => 'next')).toBe('next');
});
