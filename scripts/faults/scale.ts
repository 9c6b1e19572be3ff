// The fault suite runs in every `npm test` at a reduced size, quick enough for CI, and at full
// size with `npm run test:faults` (FAULT_SCALE=full). Each test names both sizes here.
export const FULL_SCALE = process.env.FAULT_SCALE === 'full';

/** The reduced figure in `npm test`, the full one under `npm run test:faults`. */
export function faultScale<T>(reduced: T, full: T): T {
  return FULL_SCALE ? full : reduced;
}

// The chaos soak (chaos.test.ts) has sizes of its own: reduced in every `npm test` (about two and
// a half minutes), and the ten-minute soak with `npm run test:chaos` (CHAOS_SCALE=full).
export const FULL_CHAOS = process.env.CHAOS_SCALE === 'full';

/** The chaos soak's reduced figure in `npm test`, the full one under `npm run test:chaos`. */
export function chaosScale<T>(reduced: T, full: T): T {
  return FULL_CHAOS ? full : reduced;
}
