import type { SqlPool } from '../db/client.js';
import type { Logger } from '../logging/logger.js';
import { HostGate } from './host-gate.js';
import type { HostLimiter } from './host-limiter.js';

type Rule = { host: string; max_concurrency: number | null; max_per_second: number | null; cooldown_until: Date | null };

/** A pool answering the rules read with `rules` and counting the statements sent. */
function fakePool(rules: Rule[]) {
  const sent: string[] = [];
  const pool = {
    query: async (q: { name?: string }) => {
      sent.push(q.name ?? '?');
      return { rows: q.name === 'host-rules' ? rules : [] };
    },
  } as unknown as SqlPool;
  return { pool, sent };
}

const logger = { warn: () => undefined } as unknown as Logger;
let clock = 0;
const now = () => clock;
const sleep = async (ms: number) => void (clock += ms);

beforeEach(() => (clock = Date.parse('2030-01-01T00:00:00.000Z')));

describe('HostGate', () => {
  it('lets requests of a workspace without rules go with one read per cache period, not one per request', async () => {
    const { pool, sent } = fakePool([]);
    const gate = new HostGate({ pool, limiter: null, logger, now, sleep, cacheMs: 1_000 });
    for (let i = 0; i < 50; i++) expect(await gate.pass('wsp_1', 'api.example.com', 30_000)).toMatchObject({ go: true, waitedMs: 0 });
    expect(sent).toEqual(['host-rules']);
    clock += 1_000;
    await gate.pass('wsp_1', 'api.example.com', 30_000);
    expect(sent).toEqual(['host-rules', 'host-rules']);
  });

  it('waits at the gate while the limiter is full, then goes holding a place it gives back', async () => {
    const { pool } = fakePool([{ host: 'api.example.com', max_concurrency: 1, max_per_second: null, cooldown_until: null }]);
    const answers: ('full' | 'taken')[] = ['full', 'full', 'taken'];
    let released = 0;
    const limiter: HostLimiter = {
      take: async () => {
        const answer = answers.shift()!;
        return answer === 'taken' ? { answer, release: async () => void (released += 1) } : { answer };
      },
    };
    const gate = new HostGate({ pool, limiter, logger, now, sleep });
    const pass = await gate.pass('wsp_1', 'api.example.com', 30_000);
    expect(pass).toMatchObject({ go: true });
    if (!('go' in pass)) throw new Error('deferred');
    expect(pass.waitedMs).toBeGreaterThan(0);
    pass.release();
    await Promise.resolve();
    expect(released).toBe(1);
  });

  it('holds requests while the limiter fails for a moment, and lets them go once it has failed for a while, so a lost Redis never blocks a host', async () => {
    const { pool } = fakePool([{ host: 'api.example.com', max_concurrency: 1, max_per_second: null, cooldown_until: null }]);
    const limiter: HostLimiter = { take: async () => Promise.reject(new Error('connection lost')) };
    const gate = new HostGate({ pool, limiter, logger, now, sleep, limiterDownAfterMs: 3_000 });
    // The first request waits its second at the gate, then is deferred; the limiter is still failing.
    expect(await gate.pass('wsp_1', 'api.example.com', 30_000)).toMatchObject({ deferred: expect.any(Date) });
    clock += 3_000;
    expect(await gate.pass('wsp_1', 'api.example.com', 30_000)).toMatchObject({ go: true });
  });

  it('defers every request to a host once it records its cool-down, without reading the rules again', async () => {
    const { pool, sent } = fakePool([]);
    const gate = new HostGate({ pool, limiter: null, logger, now, sleep });
    await gate.pass('wsp_1', 'api.example.com', 30_000);
    const until = new Date(clock + 30_000);
    await gate.coolDown('wsp_1', 'api.example.com', until);
    expect(await gate.pass('wsp_1', 'api.example.com', 30_000)).toEqual({ deferred: until });
    expect(await gate.pass('wsp_1', 'other.example.com', 30_000)).toMatchObject({ go: true });
    expect(sent).toEqual(['host-rules', 'host-cooldown']);
  });
});
