import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DELIVERY_STATUSES, EXECUTION_SOURCES, EXECUTION_STATUSES, JOB_STATES, MONITOR_STATES, STEP_DECISIONS, STEP_EXECUTION_STATUSES, WAITING_REASONS,
} from './index.js';

/*
 * Core takes its constant lists from this package, and the compiler checks what its serializers
 * return. What neither sees is a value core writes as text: SQL in template strings, and string
 * columns compared or set by name. This test reads core's sources for those literals and fails
 * when one of them is not in the list the API promises, so a new status or reason added in core
 * without the contract (or the other way round, a value renamed here only) is caught.
 */

const coreSrc = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/src');

async function coreSources(dir = coreSrc): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated') out.push(...(await coreSources(full)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(await readFile(full, 'utf8'));
    }
  }
  return out;
}

const quoted = (list: string) => [...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);

/** Literals written for each column, by the shapes core's code and SQL use for them. */
function literalsIn(source: string): Record<'status' | 'state' | 'waitingReason' | 'source' | 'decision', string[]> {
  const all = (pattern: RegExp) => [...source.matchAll(pattern)].flatMap((m) => (m[1].includes("'") ? quoted(m[1]) : [m[1]]));
  return {
    // SQL only: a JS `status:` is as often a local result type ('final', 'ok') as a column.
    status: [...all(/\bstatus\s*(?:=|<>)\s*'([a-z_]+)'/g), ...all(/\bstatus\s+(?:NOT\s+)?IN\s*\(([^)]*)\)/g)],
    state: [...all(/\bstate\s*(?:=|<>)\s*'([a-z_]+)'/g), ...all(/\bstate\s+(?:NOT\s+)?IN\s*\(([^)]*)\)/g)],
    waitingReason: all(/\bwaiting(?:_r|R)eason\s*(?:===|!==|=|<>|:)\s*'([a-z_]+)'/g),
    // Executions are inserted by SQL as SELECT ..., 'queued', <source>, ... (not IN ('queued', ...)).
    source: [...all(/,\s*'queued',\s*'([a-z_]+)'/g), ...all(/\bsource\s*(?:===|!==|:)\s*'([a-z_]+)'/g)],
    decision: all(/\bdecision\s*(?:===|!==|=|:)\s*'([a-z_]+)'/g),
  };
}

const found = async () => {
  const sets = { status: new Set<string>(), state: new Set<string>(), waitingReason: new Set<string>(), source: new Set<string>(), decision: new Set<string>() };
  for (const source of await coreSources()) {
    for (const [key, values] of Object.entries(literalsIn(source))) for (const v of values) sets[key as keyof typeof sets].add(v);
  }
  return sets;
};

const sorted = (values: Iterable<string>) => [...values].sort();
const outside = (values: Set<string>, ...lists: readonly (readonly string[])[]) => sorted([...values].filter((v) => !lists.some((l) => l.includes(v))));

describe('literals core writes are in the contract', () => {
  it('reads each shape of literal (the scanner itself)', () => {
    const sql = `UPDATE executions SET status = 'queued', waiting_reason = 'manual' WHERE status IN ('queued', 'running', 'waiting') AND state <> 'paused';
      SELECT i.id, 'queued', 'webhook' FROM x; if (row.decision === 'expired' && e.waitingReason !== 'approval' && p.source === 'dlq_replay') {}`;
    expect(literalsIn(sql)).toEqual({
      status: ['queued', 'queued', 'running', 'waiting'],
      state: ['paused'],
      waitingReason: ['manual', 'approval'],
      source: ['webhook', 'dlq_replay'],
      decision: ['expired'],
    });
  });

  it('execution, step and delivery statuses in SQL', async () => {
    const { status } = await found();
    expect(sorted(status)).toEqual(expect.arrayContaining(['failed', 'pending', 'processing', 'queued', 'running', 'sent', 'succeeded', 'waiting']));
    expect(outside(status, EXECUTION_STATUSES, STEP_EXECUTION_STATUSES, DELIVERY_STATUSES)).toEqual([]);
  });

  it('job and monitor states in SQL', async () => {
    const { state } = await found();
    expect(sorted(state)).toEqual(expect.arrayContaining(['active', 'completed', 'paused', 'up']));
    expect(outside(state, JOB_STATES, MONITOR_STATES)).toEqual([]);
  });

  it('waiting reasons, execution sources and step decisions', async () => {
    const { waitingReason, source, decision } = await found();
    expect(sorted(waitingReason)).toEqual(expect.arrayContaining(['approval', 'manual']));
    expect(outside(waitingReason, WAITING_REASONS)).toEqual([]);
    expect(sorted(source)).toEqual(expect.arrayContaining(['manual', 'schedule', 'webhook']));
    expect(outside(source, EXECUTION_SOURCES)).toEqual([]);
    expect(sorted(decision)).toEqual(expect.arrayContaining(['expired', 'rejected', 'resumed', 'timed_out']));
    expect(outside(decision, STEP_DECISIONS)).toEqual([]);
  });
});
