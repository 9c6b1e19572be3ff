// The fault suite runs in every `npm test` at a reduced size, quick enough for CI, and at full
// size with `npm run test:faults` (FAULT_SCALE=full). Each test names both sizes here.
export const FULL_SCALE = process.env.FAULT_SCALE === 'full';

/** The reduced figure in `npm test`, the full one under `npm run test:faults`. */
export function faultScale<T>(reduced: T, full: T): T {
  return FULL_SCALE ? full : reduced;
}
