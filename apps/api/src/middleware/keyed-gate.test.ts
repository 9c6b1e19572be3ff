import { KeyedGate } from './keyed-gate.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('lets perKey holders of a key in at once and the next in order as each leaves', async () => {
  const gate = new KeyedGate(2);
  const entered: number[] = [];
  const releases: (() => void)[] = [];
  for (let i = 0; i < 5; i += 1) void gate.enter('a').then((release) => (entered.push(i), releases.push(release)));
  await tick();
  expect(entered).toEqual([0, 1]);
  expect(gate.load('a')).toEqual({ holding: 2, waiting: 3 });
  releases[1]();
  await tick();
  expect(entered).toEqual([0, 1, 2]);
  releases[0]();
  releases[2]();
  await tick();
  expect(entered).toEqual([0, 1, 2, 3, 4]);
  expect(gate.load('a')).toEqual({ holding: 2, waiting: 0 });
});

it('never makes one key wait for another', async () => {
  const gate = new KeyedGate(1);
  await gate.enter('a');
  let entered = false;
  void gate.enter('a');
  void gate.enter('b').then(() => (entered = true));
  await tick();
  expect(entered).toBe(true);
});

it('counts a release once however often it is called, and forgets idle keys', async () => {
  const gate = new KeyedGate(1);
  const release = await gate.enter('a');
  let second = false;
  const waiting = gate.enter('a').then((r) => ((second = true), r));
  release();
  release();
  await tick();
  expect(second).toBe(true);
  expect(gate.load('a')).toEqual({ holding: 1, waiting: 0 });
  (await waiting)();
  expect(gate.load('a')).toEqual({ holding: 0, waiting: 0 });
});
