/**
 * The node options `npm start`'s supervisor gives each app it starts. V8 lets a process's young
 * generation grow to 32 MB during start-up and keeps it while idle. The scheduler and the notifier
 * allocate little and get 8 MB (4 MB semi-spaces), which saves about 24 MB each. The API and the
 * executor keep V8's default: every create and every attempt allocates, and capped, they spent
 * 13 % of their CPU collecting garbage and the public path ran about 9 % slower
 * (docs/BENCHMARKS.md, "The public path, round 3"). The bench starts the apps with the same
 * options, so its figures are production's.
 */
const SMALL_YOUNG_GENERATION = '--max-semi-space-size=4';

export function childNodeOptions(app: 'api' | 'scheduler' | 'executor' | 'notifier'): string {
  return app === 'scheduler' || app === 'notifier' ? SMALL_YOUNG_GENERATION : '';
}
