import { packageOf, summarizeProfile, type CpuProfile } from './profile.js';

describe('packageOf', () => {
  it('names node_modules packages, scoped ones with their scope', () => {
    expect(packageOf('file:///w/node_modules/pg/lib/client.js', 'query')).toBe('pg');
    expect(packageOf('file:///w/node_modules/@prisma/client/runtime/x.js', 'f')).toBe('@prisma/client');
  });

  it('tells the service, Node internals and V8 pseudo-frames apart', () => {
    expect(packageOf('file:///w/packages/core/src/executions/run-attempt.ts', 'attempt')).toBe('service');
    expect(packageOf('node:internal/streams/readable', 'read')).toBe('node');
    expect(packageOf('', '(garbage collector)')).toBe('(garbage collector)');
  });
});

describe('summarizeProfile', () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(idle)', '') },
      { id: 2, callFrame: frame('query', 'file:///w/node_modules/pg/lib/client.js') },
      { id: 3, callFrame: frame('attempt', 'file:///w/packages/core/src/run.ts') },
    ],
    // Each sample lasts until the next one: deltas[i + 1].
    samples: [2, 2, 3, 1, 2],
    timeDeltas: [0, 1000, 1000, 2000, 4000, 0],
  };

  it('adds self time per package and leaves idle time out of the shares', () => {
    const s = summarizeProfile(profile);
    expect(s.idleMs).toBe(4);
    expect(s.busyMs).toBe(4);
    expect(s.byPackage).toEqual([
      { name: 'pg', ms: 2, percent: 50 },
      { name: 'service', ms: 2, percent: 50 },
    ]);
  });

  it('charges Node internals to the package that called them', () => {
    const s = summarizeProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        { id: 2, callFrame: frame('query', 'file:///w/node_modules/pg/lib/client.js'), children: [3] },
        { id: 3, callFrame: frame('writev', 'node:net'), children: [4] },
        { id: 4, callFrame: frame('native writev', '') },
      ],
      samples: [4, 3, 2],
      timeDeltas: [0, 1000, 1000, 1000],
    });
    expect(s.byCaller).toEqual([{ name: 'pg', ms: 3, percent: 100 }]);
    expect(s.byPackage.map((x) => x.name).sort()).toEqual(['(native)', 'node', 'pg']);
  });

  it('is empty, not NaN, for a profile without samples', () => {
    const s = summarizeProfile({ nodes: profile.nodes });
    expect(s.busyMs).toBe(0);
    expect(s.byPackage).toEqual([]);
  });
});
