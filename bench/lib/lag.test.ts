import { analyseFires, countDeliveries, type Arrival, type ExecutionRecord, type Slot } from './lag.js';

const T = Date.parse('2030-01-01T00:00:00.000Z');

function run(n: number) {
  const expected: Slot[] = [];
  const executions: ExecutionRecord[] = [];
  const arrivals: Arrival[] = [];
  for (let i = 0; i < n; i++) {
    expected.push({ jobId: `job_${i}`, scheduledFor: T });
    executions.push({ id: `exe_${i}`, jobId: `job_${i}`, scheduledFor: T });
    arrivals.push({ executionId: `exe_${i}`, at: T + 10 + i });
  }
  return { expected, executions, arrivals, deadline: T + 60_000 };
}

describe('analyseFires', () => {
  it('computes each lag as arrival minus scheduled_for', () => {
    const r = analyseFires(run(100));
    expect(r.lags).toHaveLength(100);
    expect(r.summary).toMatchObject({ min: 10, p50: 59, p99: 108, max: 109 });
    expect(r.misses).toBe(0);
    expect(r.duplicates).toBe(0);
  });

  it('counts a slot whose request never arrived as a miss', () => {
    const input = run(10);
    input.arrivals.splice(3, 1);
    const r = analyseFires(input);
    expect(r.misses).toBe(1);
    expect(r.received).toBe(9);
    expect(r.missSamples[0]).toMatch(/exe_3 never received/);
  });

  it('counts a slot with no execution row as a miss', () => {
    const input = run(10);
    input.executions.splice(0, 1);
    input.arrivals.splice(0, 1);
    const r = analyseFires(input);
    expect(r.misses).toBe(1);
    expect(r.missSamples[0]).toMatch(/no execution row/);
  });

  it('counts an arrival after the deadline as a miss, and as late', () => {
    const input = run(5);
    input.arrivals[4] = { executionId: 'exe_4', at: input.deadline + 1 };
    const r = analyseFires(input);
    expect(r.misses).toBe(1);
    expect(r.late).toBe(1);
  });

  it('counts an execution id received twice as a duplicate', () => {
    const input = run(10);
    input.arrivals.push({ executionId: 'exe_2', at: T + 500 });
    const r = analyseFires(input);
    expect(r.duplicateDeliveries).toBe(1);
    expect(r.duplicates).toBe(1);
    // The lag of that slot is its first arrival.
    expect(r.summary?.max).toBe(19);
  });

  it('counts two executions of one (job, scheduled_for) as a duplicate fire', () => {
    const input = run(10);
    input.executions.push({ id: 'exe_extra', jobId: 'job_5', scheduledFor: T });
    input.arrivals.push({ executionId: 'exe_extra', at: T + 20 });
    const r = analyseFires(input);
    expect(r.duplicateFires).toBe(1);
    expect(r.duplicates).toBe(1);
    expect(r.misses).toBe(0);
  });

  it('counts a second execution row for a slot even before it is delivered', () => {
    const input = run(3);
    input.executions.push({ id: 'exe_again', jobId: 'job_0', scheduledFor: T });
    expect(analyseFires(input).duplicateFires).toBe(1);
  });

  it('keeps arrivals of unknown executions out of the lags', () => {
    const input = run(3);
    input.arrivals.push({ executionId: 'exe_stranger', at: T + 1 });
    const r = analyseFires(input);
    expect(r.unexpected).toBe(1);
    expect(r.lags).toHaveLength(3);
  });

  it('does not match a fire of the same job at another time to the expected slot', () => {
    const input = run(1);
    input.executions[0] = { id: 'exe_0', jobId: 'job_0', scheduledFor: T + 1000 };
    const r = analyseFires(input);
    expect(r.misses).toBe(1);
    expect(r.unexpected).toBe(1);
  });

  it('reports every slot missed, and no percentiles, when the target received nothing', () => {
    const input = run(50);
    const r = analyseFires({ ...input, arrivals: [] });
    expect(r.misses).toBe(50);
    expect(r.summary).toBeNull();
  });
});

describe('countDeliveries', () => {
  it('counts repeats of an id', () => {
    expect(countDeliveries(['a', 'b', 'a', 'a'])).toEqual({ total: 4, distinct: 2, duplicates: 2 });
  });
});
