// The job-stats scenario's checks: the statistics the API answers must be the executions' own, or
// a fast answer proves nothing.

/** Executions and failures of one job in one window. */
export interface Counts {
  executions: number;
  failed: number;
}

/** What the API answered for a job and window, beside the same counts read straight from the executions. */
export interface CountCheck {
  label: string;
  api: Counts;
  direct: Counts;
}

/** One problem per check whose counts differ, naming both; none when every answer is right. */
export function countMismatches(checks: readonly CountCheck[]): string[] {
  return checks
    .filter((c) => c.api.executions !== c.direct.executions || c.api.failed !== c.direct.failed)
    .map((c) => `${c.label}: the API counted ${c.api.executions} executions (${c.api.failed} failed), the executions table ${c.direct.executions} (${c.direct.failed} failed)`);
}

/** The mean of a list of counts, null for none. */
export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}
