import { throughputRate } from './rate.js';

describe('throughputRate', () => {
  it('measures from the first enqueue to the last completion', () => {
    // 1,000 units enqueued at t=10,000; the first finishes at 10,500, the last at 12,000.
    const completedAt = Array.from({ length: 1000 }, (_, i) => 10_500 + (i * 1500) / 999);
    const r = throughputRate({ firstEnqueueAt: 10_000, completedAt, expected: 1000 });
    expect(r.elapsedMs).toBeCloseTo(2000, 6);
    expect(r.perSecond).toBeCloseTo(500, 6);
    expect(r.problems).toEqual([]);
  });

  it('does not start the clock at the first completion', () => {
    const r = throughputRate({ firstEnqueueAt: 0, completedAt: [1000, 2000], expected: 2 });
    // From the first completion it would read 2 per second; from the enqueue it is 1.
    expect(r.perSecond).toBe(1);
  });

  it('uses the latest completion even when the input is not in order', () => {
    const r = throughputRate({ firstEnqueueAt: 0, completedAt: [4000, 1000, 2000, 3000], expected: 4 });
    expect(r.elapsedMs).toBe(4000);
    expect(r.perSecond).toBe(1);
  });

  it('reports a run where some units never completed', () => {
    const r = throughputRate({ firstEnqueueAt: 0, completedAt: [100, 200], expected: 3 });
    expect(r.problems).toContain('only 2 of 3 completed');
  });

  it('reports more completions than units enqueued', () => {
    const r = throughputRate({ firstEnqueueAt: 0, completedAt: [100, 200, 300], expected: 2 });
    expect(r.problems.join()).toMatch(/3 completions for 2 enqueued/);
  });

  it('reports completions older than the enqueue (stale rows or a wrong clock)', () => {
    const r = throughputRate({ firstEnqueueAt: 5000, completedAt: [4000, 6000], expected: 2 });
    expect(r.problems.join()).toMatch(/before the first enqueue/);
  });

  it('gives no rate and a problem when nothing completed', () => {
    const r = throughputRate({ firstEnqueueAt: 0, completedAt: [], expected: 10 });
    expect(r.perSecond).toBeNull();
    expect(r.problems).toContain('no unit completed');
  });

  it('gives no rate when the window is empty', () => {
    const r = throughputRate({ firstEnqueueAt: 1000, completedAt: [1000], expected: 1 });
    expect(r.perSecond).toBeNull();
    expect(r.problems.length).toBeGreaterThan(0);
  });
});
