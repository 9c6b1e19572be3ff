import type { BenchContext } from '../harness/context.js';
import type { Figure } from '../lib/verdict.js';

export interface ScenarioResult {
  figures: Figure[];
  /** Sizes and settings the figures were measured with. */
  parameters: Record<string, unknown>;
  /** Everything else worth keeping: raw counts, CPU per process, samples of misses. */
  details: Record<string, unknown>;
}

export type Scenario = (ctx: BenchContext) => Promise<ScenarioResult>;
