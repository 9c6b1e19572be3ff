import { GroupCommit } from './group-commit.js';

/** A run function whose batches are recorded and which finishes each batch only when told to. */
function gatedRun() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (items.includes(13) && items.length > 1) throw new Error('the batch fails');
    if (items.includes(13)) throw new Error('13 fails alone');
    return items.map((i) => i * 10);
  };
  const openAll = async () => {
    while (gates.length > 0) gates.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, run, openAll };
}

async function settle<T>(promises: Promise<T>[], openAll: () => Promise<void>): Promise<PromiseSettledResult<T>[]> {
  const all = Promise.allSettled(promises);
  for (let i = 0; i < 20; i++) await openAll();
  return all;
}

it('sends a lone item at once, in a batch of its own', async () => {
  const { batches, run, openAll } = gatedRun();
  const commit = new GroupCommit(run, { maxBatch: 10, maxInFlight: 1 });
  const result = settle([commit.add(1)], openAll);
  expect(await result).toEqual([{ status: 'fulfilled', value: 10 }]);
  expect(batches).toEqual([[1]]);
});

it('groups the items added while a batch is in flight into the next batch', async () => {
  const { batches, run, openAll } = gatedRun();
  const commit = new GroupCommit(run, { maxBatch: 10, maxInFlight: 1 });
  const first = commit.add(1);
  await new Promise((resolve) => setImmediate(resolve));
  const rest = [2, 3, 4].map((i) => commit.add(i));
  const results = await settle([first, ...rest], openAll);
  expect(results.map((r) => (r as PromiseFulfilledResult<number>).value)).toEqual([10, 20, 30, 40]);
  expect(batches).toEqual([[1], [2, 3, 4]]);
});

it('caps batches at maxBatch and runs up to maxInFlight at once', async () => {
  const { batches, run, openAll } = gatedRun();
  const commit = new GroupCommit(run, { maxBatch: 2, maxInFlight: 2 });
  const all = [1, 2, 3, 4, 5].map((i) => commit.add(i));
  await new Promise((resolve) => setImmediate(resolve));
  expect(batches).toEqual([[1, 2], [3, 4]]);
  await settle(all, openAll);
  expect(batches).toEqual([[1, 2], [3, 4], [5]]);
});

it('runs the items of a failed batch again one by one, so only the failing item fails', async () => {
  const { batches, run, openAll } = gatedRun();
  const commit = new GroupCommit(run, { maxBatch: 10, maxInFlight: 1 });
  const results = await settle([12, 13, 14].map((i) => commit.add(i)), openAll);
  expect(results[0]).toEqual({ status: 'fulfilled', value: 120 });
  expect(results[1]).toMatchObject({ status: 'rejected', reason: new Error('13 fails alone') });
  expect(results[2]).toEqual({ status: 'fulfilled', value: 140 });
  expect(batches).toEqual([[12, 13, 14], [12], [13], [14]]);
});

it('fails every item of a failed batch with its error when items are not to be retried alone', async () => {
  const { batches, run, openAll } = gatedRun();
  const commit = new GroupCommit(run, { maxBatch: 10, maxInFlight: 1, retryAlone: false });
  const results = await settle([12, 13, 14].map((i) => commit.add(i)), openAll);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(results[0]).toMatchObject({ reason: new Error('the batch fails') });
  expect(batches).toEqual([[12, 13, 14]]);
});
