// Command line of `npm run bench -- [scenario ...] [--quick] [--set KEY=VALUE ...]`.

export const SCENARIOS = ['api-e2e', 'throughput', 'fire-lag', 'schedules-footprint', 'api', 'notifications', 'monitors', 'workflows', 'isolation', 'idle-memory', 'scaling', 'job-stats'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchArgs {
  scenarios: ScenarioName[];
  quick: boolean;
  help: boolean;
  /** Extra environment for every service process (tuning experiments), recorded in the results. */
  serviceEnv: Record<string, string>;
  /** Write a CPU profile of every service process to bench/results/profiles/. */
  profile: boolean;
}

export const USAGE = `usage: npm run bench -- [scenario ...] [--quick] [--set KEY=VALUE ...] [--profile]
  scenarios: ${SCENARIOS.join(', ')} (default: all, in this order)
  --quick        small sizes; the whole run takes under 3 minutes
  --set K=V      pass an environment variable to every service process, e.g. --set EXECUTOR_CONCURRENCY=100
  --profile      CPU-profile every service process; .cpuprofile files and a summary go to bench/results/profiles/`;

export function parseArgs(argv: readonly string[]): BenchArgs {
  const picked = new Set<ScenarioName>();
  const serviceEnv: Record<string, string> = {};
  let quick = false;
  let help = false;
  let profile = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--set' || arg.startsWith('--set=')) {
      const pair = arg === '--set' ? argv[++i] : arg.slice('--set='.length);
      const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(pair ?? '');
      if (!match) throw new Error(`--set needs KEY=VALUE, got ${pair ?? 'nothing'}`);
      serviceEnv[match[1]] = match[2];
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}\n${USAGE}`);
    else if (arg === 'all') SCENARIOS.forEach((s) => picked.add(s));
    else if ((SCENARIOS as readonly string[]).includes(arg)) picked.add(arg as ScenarioName);
    else throw new Error(`unknown scenario ${arg}\n${USAGE}`);
  }
  // Always in the documented order, whatever order they were named in.
  const scenarios = picked.size === 0 ? [...SCENARIOS] : SCENARIOS.filter((s) => picked.has(s));
  return { scenarios, quick, help, serviceEnv, profile };
}
