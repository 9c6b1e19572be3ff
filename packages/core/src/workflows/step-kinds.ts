import { STEP_KINDS } from '@cronsvc/contracts';

const STEP_DRIVEN = new Set<string>(STEP_KINDS);

/** Kinds that run steps[] through the step runner instead of one request. */
export function isStepDriven(kind: string): boolean {
  return STEP_DRIVEN.has(kind);
}
