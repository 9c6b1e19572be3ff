import { WorkspacePools, type PoolLimits, type SocketCounter } from './workspace-pools.js';

// The per-workspace pool registry on its own, with fake pools and a fake clock.

interface FakePool {
  workspace: string;
  sockets: SocketCounter;
  closed: boolean;
}

function registry(limits: Partial<PoolLimits> = {}) {
  let now = 0;
  let made = 0;
  const closed: string[] = [];
  const pools = new WorkspacePools<FakePool>(
    { maxPools: 10, maxOpenSockets: 100, idleMs: 1_000, ...limits },
    {
      create: (sockets) => ({ workspace: `pool-${++made}`, sockets, closed: false }),
      close: async (pool) => {
        pool.closed = true;
        closed.push(pool.workspace);
      },
    },
    () => now,
  );
  return { pools, closed, advance: (ms: number) => (now += ms) };
}

describe('WorkspacePools', () => {
  it('gives each workspace its own pool, made on first use and kept while used', () => {
    const { pools } = registry();
    const a = pools.acquire('ws_a');
    const b = pools.acquire('ws_b');
    expect(a.pool).not.toBe(b.pool);
    pools.release(a);
    expect(pools.acquire('ws_a').pool).toBe(a.pool);
    expect(pools.stats()).toEqual({ pools: 2, idlePools: 0, openSockets: 0 });
  });

  it('closes the pool idle the longest when a new workspace would exceed maxPools', () => {
    const { pools, closed, advance } = registry({ maxPools: 2 });
    const a = pools.acquire('ws_a');
    const b = pools.acquire('ws_b');
    pools.release(b);
    advance(10);
    pools.release(a);
    pools.release(pools.acquire('ws_c'));
    // b went idle first, so b is the one closed, though a was used first.
    expect(closed).toEqual(['pool-2']);
    expect(pools.stats().pools).toBe(2);
  });

  it('never closes a pool with a request in flight: the limits can only be exceeded by requests in flight', () => {
    const { pools, closed } = registry({ maxPools: 1 });
    const a = pools.acquire('ws_a');
    const b = pools.acquire('ws_b');
    expect(closed).toEqual([]);
    expect(pools.stats().pools).toBe(2);
    pools.release(a);
    pools.release(b);
    // The next new workspace brings it back under the limit.
    pools.release(pools.acquire('ws_c'));
    expect(closed).toEqual(['pool-1', 'pool-2']);
    expect(pools.stats().pools).toBe(1);
  });

  it('counts sockets over all pools and closes idle pools while there are more than maxOpenSockets', () => {
    const { pools, closed } = registry({ maxOpenSockets: 2 });
    const a = pools.acquire('ws_a');
    a.pool.sockets.opened();
    a.pool.sockets.opened();
    pools.release(a);
    const b = pools.acquire('ws_b');
    b.pool.sockets.opened();
    expect(pools.stats().openSockets).toBe(3);
    pools.release(b);
    expect(closed).toEqual(['pool-1']);
    expect(pools.stats().openSockets).toBe(1);
    // The closed pool's sockets closing later no longer count.
    a.pool.sockets.closed();
    a.pool.sockets.closed();
    expect(pools.stats().openSockets).toBe(1);
    b.pool.sockets.closed();
    expect(pools.stats().openSockets).toBe(0);
  });

  it('closes pools idle for idleMs on its sweep, and only those', async () => {
    const { pools, closed, advance } = registry({ idleMs: 40 });
    pools.release(pools.acquire('ws_a'));
    const busy = pools.acquire('ws_b');
    advance(50);
    // The sweep runs every idleMs / 2 on a real timer; the clock it reads is the fake one.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(closed).toEqual(['pool-1']);
    expect(pools.stats()).toEqual({ pools: 1, idlePools: 0, openSockets: 0 });
    pools.release(busy);
    await pools.closeAll();
    expect(closed).toEqual(['pool-1', 'pool-2']);
  });

  it('closes every pool on closeAll', async () => {
    const { pools, closed } = registry();
    pools.acquire('ws_a');
    pools.release(pools.acquire('ws_b'));
    await pools.closeAll();
    expect(closed.sort()).toEqual(['pool-1', 'pool-2']);
    expect(pools.stats().pools).toBe(0);
  });
});
