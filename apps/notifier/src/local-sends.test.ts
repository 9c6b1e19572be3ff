import { LocalSends } from './local-sends.js';

/** A send that finishes when the test says so. */
function controlledSends() {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const send = (id: string) => {
    started.push(id);
    return new Promise<void>((resolve) => finish.set(id, resolve));
  };
  return { started, finish, send };
}

describe('LocalSends', () => {
  it('runs at most `concurrency` sends at once, in the order handed over', async () => {
    const c = controlledSends();
    const sends = new LocalSends(c.send, 2);
    sends.push(['a', 'b', 'c']);
    sends.push(['d']);
    expect(c.started).toEqual(['a', 'b']);
    expect(sends.backlog).toBe(4);
    c.finish.get('a')!();
    await new Promise((r) => setImmediate(r));
    expect(c.started).toEqual(['a', 'b', 'c']);
    expect(sends.backlog).toBe(3);
  });

  it('on drain, starts nothing more, waits for the sends in flight and returns the rest', async () => {
    const c = controlledSends();
    const sends = new LocalSends(c.send, 1);
    sends.push(['a', 'b', 'c']);
    let drained: string[] | null = null;
    const draining = sends.drain().then((left) => (drained = left));
    await new Promise((r) => setImmediate(r));
    expect(drained).toBeNull();
    c.finish.get('a')!();
    await draining;
    expect(drained).toEqual(['b', 'c']);
    expect(c.started).toEqual(['a']);
  });
});
