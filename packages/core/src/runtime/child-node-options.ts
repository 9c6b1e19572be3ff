/**
 * The node options `npm start`'s supervisor gives each app it starts. V8 lets a process's young
 * generation grow to 32 MB during start-up and keeps it while idle; 8 MB (4 MB semi-spaces) costs
 * no measurable throughput (docs/BENCHMARKS.md, "Idle memory"). The bench starts the apps with the
 * same options, so its figures are production's.
 */
export const CHILD_NODE_OPTIONS = '--max-semi-space-size=4';
