import { runInNewContext } from 'node:vm';
import { waitFor } from '../../test/wait-for.js';
import { settleMemory } from './settle-memory.js';

const MiB = 1024 * 1024;

/** About 64 MB of arrays on V8's heap, unreachable once this returns: garbage no collection has freed yet. */
function makeGarbage(): number {
  const arrays = Array.from({ length: 512 }, (_, i) => new Array<number>(16_384).fill(i));
  return arrays.length;
}

it('collects the garbage once after the delay, and leaves no gc function behind', async () => {
  expect(makeGarbage()).toBe(512);
  const withGarbage = process.memoryUsage().heapUsed;
  settleMemory(10);
  await waitFor(() => process.memoryUsage().heapUsed < withGarbage - 48 * MiB, { intervalMs: 5, timeoutMs: 5_000, what: 'the collection' });
  expect(runInNewContext('typeof gc')).toBe('undefined');
});
