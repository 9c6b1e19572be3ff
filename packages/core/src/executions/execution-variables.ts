import { randomUUID } from 'node:crypto';

/**
 * The per-execution variables ({{timestamp}}, {{uuid}}): made once, by the claim that starts an
 * execution, and reused by every retry, so each attempt of one execution renders the same values.
 */
export interface ExecutionVariables {
  timestamp: string;
  uuid: string;
}

export function newExecutionVariables(now: Date): ExecutionVariables {
  return { timestamp: now.toISOString(), uuid: randomUUID() };
}
