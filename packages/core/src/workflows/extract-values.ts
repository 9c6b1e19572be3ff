import { jsonPathBudget, JsonPathBudgetExceeded, queryJsonPath, type JsonPathBudget } from '../attempts/json-path.js';
import { templateText } from '../templates/step-template.js';
import type { ContextChanges } from './job-context.js';
import type { Step } from '@cronsvc/contracts';

/**
 * A step's `extract` and `extract_to_context` (docs/WORKFLOWS.md), evaluated on the step's
 * document: an http step's response body parsed as JSON, a wait's posted payload, an approval's
 * decision. Pure: the caller stores the result.
 */

/** One extracted value may take this much JSON; the run's whole context four times as much. */
export const MAX_EXTRACTED_BYTES = 64 * 1024;
export const MAX_RUN_CONTEXT_BYTES = 256 * 1024;

export interface Extraction {
  /** Every key of both maps with its value; null when the path matched nothing. */
  extracted: Record<string, unknown>;
  /** The run's context after this step. */
  context: Record<string, unknown>;
  /** Changes for the job's context store: found values as strings (objects as JSON text). */
  storeChanges: ContextChanges;
}

/**
 * One match gives its value, several an array; no match, or a path that cannot be evaluated here,
 * gives null. Running out of the step's budget is not "nothing found": it is thrown.
 */
function evaluate(path: string, document: unknown, budget: JsonPathBudget): unknown {
  try {
    const result = queryJsonPath(path, document, budget);
    // `$` on a step with no document at all (no JSON body) finds undefined: that is nothing too.
    return result.found ? (result.value ?? null) : null;
  } catch (error) {
    if (error instanceof JsonPathBudgetExceeded) throw error;
    return null;
  }
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');

/**
 * The values a step extracts, or why they cannot be kept. Both maps spend from one budget, shared
 * with the step attempt's assertions: a hundred paths cost no more than one, so no step can hold
 * up the executor that every workspace shares.
 */
export function extractValues(step: Step, document: unknown, context: Record<string, unknown>, budget: JsonPathBudget = jsonPathBudget()): Extraction | { problem: string } {
  const extracted: Record<string, unknown> = {};
  const next = { ...context };
  const storeChanges: ContextChanges = {};
  try {
    for (const [key, path] of Object.entries(step.extract ?? {})) {
      extracted[key] = next[key] = evaluate(path, document, budget);
    }
    for (const [key, path] of Object.entries(step.extract_to_context ?? {})) {
      const value = evaluate(path, document, budget);
      extracted[key] = next[key] = value;
      // Nothing found keeps what the store holds: a missing field must not wipe a saved cursor.
      if (value !== null) storeChanges[key] = templateText(value);
    }
  } catch (error) {
    if (!(error instanceof JsonPathBudgetExceeded)) throw error;
    return { problem: `extract: ${error.message} (one budget serves every path of a step)` };
  }
  for (const [key, value] of Object.entries(extracted)) {
    if (jsonBytes(value) > MAX_EXTRACTED_BYTES) return { problem: `extracted value "${key}" is larger than ${MAX_EXTRACTED_BYTES} bytes of JSON` };
  }
  if (jsonBytes(next) > MAX_RUN_CONTEXT_BYTES) return { problem: `the run's context would be larger than ${MAX_RUN_CONTEXT_BYTES} bytes of JSON` };
  return { extracted, context: next, storeChanges };
}
