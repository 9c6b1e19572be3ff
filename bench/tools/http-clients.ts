// `node --import tsx bench/tools/http-clients.ts [--requests N] [--concurrency 200,1000]
//    [--workspaces 1,100] [--rounds 3] [--variants a,b] [--legacy-rev REV]`
// Outbound HTTP clients side by side, in one process, against the bench's own keep-alive target
// (bench/target/server.ts, in a process of its own): the service's client, the node:http client of
// ADR 005 (taken from git), and bare node:http and undici, each with a keep-alive pool per
// workspace. Every (concurrency, workspaces) cell runs every variant once per round, in a rotated
// order, so drift on a shared machine hits all alike. Prints requests/s and the client's CPU per
// request (median over rounds; CPU is the steadier figure on a shared machine); writes
// bench/results/http-clients.json.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, stopAll } from '../harness/processes.js';
import { startTarget } from '../harness/target.js';
import { percentile } from '../lib/stats.js';
import { CLIENT_VARIANTS, LEGACY_REV, type ClientVariant } from './client-variants.js';

interface Options {
  requests: number;
  concurrency: number[];
  workspaces: number[];
  rounds: number;
  variants: string[];
  legacyRev: string;
}

function parse(argv: string[]): Options {
  const options: Options = { requests: 20_000, concurrency: [200, 1_000], workspaces: [1, 100], rounds: 3, variants: Object.keys(CLIENT_VARIANTS), legacyRev: LEGACY_REV };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    const numbers = () => value.split(',').map(Number);
    if (flag === '--requests') options.requests = Number(value);
    else if (flag === '--concurrency') options.concurrency = numbers();
    else if (flag === '--workspaces') options.workspaces = numbers();
    else if (flag === '--rounds') options.rounds = Number(value);
    else if (flag === '--variants') options.variants = value.split(',');
    else if (flag === '--legacy-rev') options.legacyRev = value;
    else throw new Error(`unknown option ${flag}`);
  }
  for (const name of options.variants) if (!(name in CLIENT_VARIANTS)) throw new Error(`unknown variant ${name}; known: ${Object.keys(CLIENT_VARIANTS).join(', ')}`);
  return options;
}

interface Sample {
  perSecond: number;
  cpuMicrosPerRequest: number;
}

/** `requests` calls with `concurrency` in flight, spread round-robin over `workspaces`. */
async function drive(name: string, variant: ClientVariant, url: string, requests: number, concurrency: number, workspaces: number): Promise<Sample> {
  let next = 0;
  let failures = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const lane = async () => {
    for (let i = next++; i < requests; i = next++) {
      const status = await variant.call({ url, workspaceId: `ws-${i % workspaces}`, id: `r${i}` });
      if (status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, lane));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (failures > 0) throw new Error(`${name}: ${failures} of ${requests} calls did not get a 200`);
  return { perSecond: requests / seconds, cpuMicrosPerRequest: (cpu.user + cpu.system) / requests };
}

const options = parse(process.argv.slice(2));
const target = await startTarget();
const url = `${target.url}/hit`;
const results: { variant: string; concurrency: number; workspaces: number; samples: Sample[] }[] = [];
try {
  for (const concurrency of options.concurrency) {
    for (const workspaces of options.workspaces) {
      const cells = options.variants.map((name) => ({ variant: name, concurrency, workspaces, samples: [] as Sample[] }));
      results.push(...cells);
      for (let round = 0; round < options.rounds; round++) {
        for (let k = 0; k < cells.length; k++) {
          const cell = cells[(k + round) % cells.length];
          const variant = await CLIENT_VARIANTS[cell.variant].create(options);
          try {
            // Warm-up: opens the pools and lets V8 optimise the path.
            await drive(cell.variant, variant, url, Math.min(5_000, options.requests), concurrency, workspaces);
            cell.samples.push(await drive(cell.variant, variant, url, options.requests, concurrency, workspaces));
          } finally {
            await variant.close();
          }
          const last = cell.samples.at(-1)!;
          process.stderr.write(`round ${round + 1} c=${concurrency} w=${workspaces} ${cell.variant}: ${Math.round(last.perSecond)} req/s, ${last.cpuMicrosPerRequest.toFixed(1)} us CPU/req\n`);
        }
        await target.reset();
      }
    }
  }
} finally {
  await stopAll();
}

const median = (values: number[]) => percentile(values, 50) ?? NaN;
const rows = results.map((r) => ({
  variant: r.variant,
  concurrency: r.concurrency,
  workspaces: r.workspaces,
  requestsPerSecond: Math.round(median(r.samples.map((s) => s.perSecond))),
  cpuMicrosPerRequest: Number(median(r.samples.map((s) => s.cpuMicrosPerRequest)).toFixed(1)),
  rounds: r.samples.map((s) => Math.round(s.perSecond)),
}));
const lines = ['| variant | in flight | workspaces | requests/s (median) | client CPU us/request (median) | requests/s per round |', '| --- | --- | --- | --- | --- | --- |'];
for (const r of rows) lines.push(`| ${r.variant} | ${r.concurrency} | ${r.workspaces} | ${r.requestsPerSecond} | ${r.cpuMicrosPerRequest} | ${r.rounds.join(', ')} |`);
const legend = options.variants.map((name) => `- ${name}: ${CLIENT_VARIANTS[name].what}${name === 'adr005-node-http' ? ` at ${options.legacyRev}` : ''}`);
process.stdout.write(`\n${lines.join('\n')}\n\n${legend.join('\n')}\n`);
const record = {
  tool: 'http-clients',
  finishedAt: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, node: process.version, loadAverage: os.loadavg() },
  options,
  rows,
};
writeFileSync(path.join(repoRoot, 'bench', 'results', 'http-clients.json'), `${JSON.stringify(record, null, 2)}\n`);
process.exit(0);
