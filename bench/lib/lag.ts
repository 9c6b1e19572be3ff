// Fire-lag accounting: joins the slots that had to fire, the executions Postgres holds and the
// requests the target received, into lags, misses and duplicates.
import { summarize, type Summary } from './stats.js';

/** A (job, scheduled_for) that must fire exactly once. */
export interface Slot {
  jobId: string;
  /** ms since the epoch */
  scheduledFor: number;
}

/** An execution row as Postgres holds it. */
export interface ExecutionRecord {
  id: string;
  jobId: string;
  scheduledFor: number;
}

/** One request the target received, identified by its X-Cron-Service-Execution-Id header. */
export interface Arrival {
  executionId: string;
  at: number;
}

export interface FireReport {
  expected: number;
  /** Slots received within the deadline. */
  received: number;
  /** Per received slot: first arrival minus scheduled_for, in ms. */
  lags: number[];
  summary: Summary | null;
  /** Slots with no request received by the deadline (no execution row, or a row never delivered). */
  misses: number;
  missSamples: string[];
  /** Extra deliveries of one execution id (the HTTP call is at least once, but it should be once here). */
  duplicateDeliveries: number;
  /** Extra executions for one (job, scheduled_for): the fire itself happened more than once. */
  duplicateFires: number;
  /** duplicateDeliveries + duplicateFires. */
  duplicates: number;
  /** Distinct execution ids received that belong to no expected slot. */
  unexpected: number;
  /** Arrivals after the deadline (their slots count as misses). */
  late: number;
}

const slotKey = (jobId: string, scheduledFor: number) => `${jobId}@${new Date(scheduledFor).toISOString()}`;

export function analyseFires(input: {
  expected: readonly Slot[];
  executions: readonly ExecutionRecord[];
  arrivals: readonly Arrival[];
  /** Arrivals after this (ms since the epoch) do not count. */
  deadline: number;
}): FireReport {
  const expectedKeys = new Map<string, Slot>();
  for (const slot of input.expected) expectedKeys.set(slotKey(slot.jobId, slot.scheduledFor), slot);

  const execsBySlot = new Map<string, string[]>();
  const slotOfExecution = new Map<string, string>();
  for (const exe of input.executions) {
    const key = slotKey(exe.jobId, exe.scheduledFor);
    slotOfExecution.set(exe.id, key);
    const list = execsBySlot.get(key);
    if (list) list.push(exe.id);
    else execsBySlot.set(key, [exe.id]);
  }

  const firstArrival = new Map<string, number>();
  const deliveries = new Map<string, number>();
  let late = 0;
  for (const a of input.arrivals) {
    if (a.at > input.deadline) {
      late++;
      continue;
    }
    deliveries.set(a.executionId, (deliveries.get(a.executionId) ?? 0) + 1);
    const seen = firstArrival.get(a.executionId);
    if (seen === undefined || a.at < seen) firstArrival.set(a.executionId, a.at);
  }

  let duplicateDeliveries = 0;
  let unexpected = 0;
  for (const [id, count] of deliveries) {
    duplicateDeliveries += count - 1;
    const key = slotOfExecution.get(id);
    if (key === undefined || !expectedKeys.has(key)) unexpected++;
  }

  const lags: number[] = [];
  const missSamples: string[] = [];
  let misses = 0;
  let duplicateFires = 0;
  for (const [key, slot] of expectedKeys) {
    const execs = execsBySlot.get(key) ?? [];
    if (execs.length > 1) duplicateFires += execs.length - 1;
    let first = Infinity;
    for (const id of execs) {
      const at = firstArrival.get(id);
      if (at !== undefined && at < first) first = at;
    }
    if (first === Infinity) {
      misses++;
      if (missSamples.length < 5) missSamples.push(execs.length === 0 ? `${key} (no execution row)` : `${key} (${execs[0]} never received)`);
      continue;
    }
    lags.push(first - slot.scheduledFor);
  }

  return {
    expected: expectedKeys.size,
    received: lags.length,
    lags,
    summary: summarize(lags),
    misses,
    missSamples,
    duplicateDeliveries,
    duplicateFires,
    duplicates: duplicateDeliveries + duplicateFires,
    unexpected,
    late,
  };
}

/** Counts over plain deliveries, for runs without slots (throughput): distinct ids and repeats. */
export function countDeliveries(ids: Iterable<string>): { total: number; distinct: number; duplicates: number } {
  const seen = new Set<string>();
  let total = 0;
  for (const id of ids) {
    total++;
    seen.add(id);
  }
  return { total, distinct: seen.size, duplicates: total - seen.size };
}
