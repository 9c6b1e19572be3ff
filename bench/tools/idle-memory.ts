// `node --import tsx bench/tools/idle-memory.ts [--tree DIR] [--all-in-one] [--idle-seconds N] [--command "npm start"] [--set KEY=VALUE ...] [--breakdown]`
//
// Idle memory of the service as an operator starts it: `npm start` (or --command) of the checkout
// at DIR (default: this one) with NODE_ENV=production on a throwaway database and Redis prefix,
// in a process group of its own. Once the API answers /healthz and N seconds (default 20) have
// passed with no work, it adds up the resident memory (VmRSS) of every process in the group, and
// prints each process with its command line. RSS counts the pages the processes share once per
// process: the node binary's (30-45 MB) are resident in every node process. So it also prints
// the group's footprint: the memory each process allocated itself (RssAnon) added up, plus the
// largest file-backed part (RssFile) once, an estimate of what the group occupies. `--all-in-one` sets ALL_IN_ONE=1; `--set` adds a
// variable to the service's environment (NODE_OPTIONS=..., say). `--breakdown`
// loads bench/tools/memory-probe.mjs into every node process of the group and prints, per
// process, the V8 heap, the memory outside it, and the packages it loaded (most modules first).
// With a checkout whose production start runs compiled output, build it first (`npm run build`).
// docs/BENCHMARKS.md ("Idle memory") holds what it measured.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { processGroup, repoRoot, spawnManaged, stopAll, type GroupProcess } from '../harness/processes.js';
import { createDatabase, databaseUrl, deleteByPrefix, dropDatabase, REDIS_URL } from '../harness/stores.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const tree = path.resolve(option('--tree', repoRoot));
const allInOne = argv.includes('--all-in-one');
const breakdown = argv.includes('--breakdown');
const idleSeconds = Number(option('--idle-seconds', '20'));
const [command, ...commandArgs] = option('--command', 'npm start').split(' ');
const extraEnv = Object.fromEntries(
  argv.flatMap((arg, i) => (arg === '--set' && argv[i + 1]?.includes('=') ? [[argv[i + 1].slice(0, argv[i + 1].indexOf('=')), argv[i + 1].slice(argv[i + 1].indexOf('=') + 1)]] : [])),
);
if (!existsSync(path.join(tree, 'package.json')) || !existsSync(path.join(tree, 'node_modules'))) {
  process.stderr.write(`${tree} is not an installed checkout of the service (package.json and node_modules)\n`);
  process.exit(64);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

interface Probe {
  pid: number;
  memory: NodeJS.MemoryUsage;
  spaces: Record<string, number>;
  modules: number;
  packages: Record<string, number>;
  prismaCompiler: boolean;
}

function printBreakdown(group: GroupProcess[], probes: Probe[]): void {
  for (const probe of probes) {
    const proc = group.find((p) => p.pid === probe.pid);
    const { heapUsed, heapTotal, external, arrayBuffers } = probe.memory;
    const top = Object.entries(probe.packages).sort((a, b) => b[1] - a[1]);
    process.stdout.write(
      `\n${probe.pid} ${proc?.command ?? ''}\n` +
        `  heap used ${mb(heapUsed)} of ${mb(heapTotal)} MB, external ${mb(external)} MB (array buffers ${mb(arrayBuffers)} MB), ${probe.modules} modules${probe.prismaCompiler ? ", Prisma's query compiler loaded" : ''}\n` +
        `  heap spaces: ${Object.entries(probe.spaces).map(([name, bytes]) => `${name.replace(/_space$/, '')} ${mb(bytes)}`).join(', ')} MB\n` +
        `  ${top.map(([name, count]) => `${name} ${count}`).join(', ')}\n`,
    );
  }
}

const dbName = `cronsvc_bench_${process.pid}`;
const prefix = `cronsvc_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
const port = 20_000 + (process.pid % 10_000);
const probeDir = mkdtempSync(path.join(os.tmpdir(), 'memory-probe-'));

await createDatabase(dbName);
try {
  const service = spawnManaged(
    'service',
    command,
    commandArgs,
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATABASE_URL: databaseUrl(dbName),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...(allInOne ? { ALL_IN_ONE: '1' } : {}),
      ...extraEnv,
      ...(breakdown
        ? { NODE_OPTIONS: `${extraEnv.NODE_OPTIONS ?? ''} --import ${path.join(repoRoot, 'bench/tools/memory-probe.mjs')}`.trim(), MEMORY_PROBE_DIR: probeDir }
        : {}),
    },
    tree,
  );
  const deadline = Date.now() + 120_000;
  while (!(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false))) {
    if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
    if (Date.now() > deadline) throw new Error(`the API did not answer within 120 s:\n${service.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  if (!service.alive()) throw new Error(`the service exited:\n${service.tail()}`);
  const group = processGroup(service.pid).map((p) => ({ ...p, command: p.command.replaceAll(tree, '.') }));
  const total = group.reduce((sum, p) => sum + p.rssBytes, 0);
  const footprint = group.reduce((sum, p) => sum + p.anonBytes, 0) + Math.max(0, ...group.map((p) => p.fileBytes));
  const settings = Object.entries(extraEnv).map(([k, v]) => ` ${k}=${v}`).join('');
  process.stdout.write(`${tree}: \`${command} ${commandArgs.join(' ')}\`${allInOne ? ' with ALL_IN_ONE=1' : ''}${settings}, NODE_ENV=production, ${idleSeconds} s idle\n`);
  process.stdout.write(`      pid     RSS    anon    file (MB)\n`);
  for (const p of group) {
    process.stdout.write(`  ${String(p.pid).padStart(7)} ${[p.rssBytes, p.anonBytes, p.fileBytes].map((b) => mb(b).padStart(7)).join(' ')}  ${p.command}\n`);
  }
  process.stdout.write(`  total ${mb(total)} MB RSS in ${group.length} processes; footprint (anon + file once) ${mb(footprint)} MB\n`);
  if (breakdown) {
    const nodes = group.filter((p) => /(^|\/)(node|npm)( |$)/.test(p.command) || p.command.startsWith(process.execPath));
    for (const p of nodes) process.kill(p.pid, 'SIGUSR2');
    const wanted = nodes.length;
    const until = Date.now() + 10_000;
    while (readdirSync(probeDir).length < wanted && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    const probes = readdirSync(probeDir).map((file) => JSON.parse(readFileSync(path.join(probeDir, file), 'utf8')) as Probe);
    printBreakdown(group, probes);
  }
} finally {
  await stopAll();
  await dropDatabase(dbName);
  rmSync(probeDir, { recursive: true, force: true });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
}
