import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createTestDatabase, deleteRedisKeys, groupProcesses, productionEnv as serviceEnv, redisUrl, repoRoot, spawnProcess, uniqueName, waitFor, type ChildApp, type GroupProcess, type TestDatabase
} from '@cronsvc/core/testing';

// With NODE_ENV=production every service process runs the JavaScript `npm run build` compiled
// (the test run's global set-up builds it): no TypeScript loader, no esbuild, in any of them.

const APPS = ['api', 'scheduler', 'executor', 'notifier'];
// What running TypeScript takes: tsx or ts-node as a loader or a command, or Node's own type
// stripping. tsx also starts an esbuild process to transform each file.
const TYPESCRIPT = /\btsx\b|ts-node|--experimental-(strip|transform)-types|--loader|--experimental-loader/;

let database: TestDatabase;
let prefix: string;

beforeAll(async () => {
  database = await createTestDatabase();
  prefix = uniqueName('test');
});

afterAll(async () => {
  await database.drop();
  await deleteRedisKeys(prefix);
});

function productionEnv(extra: Record<string, string> = {}): Record<string, string> {
  return serviceEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: String(20_000 + Math.floor(Math.random() * 20_000)), ...extra });
}

/** The processes of `app`'s group once every line in `started` has been printed. */
async function startedGroup(app: ChildApp, started: RegExp[]): Promise<GroupProcess[]> {
  await waitFor(() => started.every((line) => line.test(app.output())), { timeoutMs: 60_000, what: () => `${started.join(', ')} (output: ${app.output()})` });
  return groupProcesses(app.child.pid!);
}

function expectNoTypeScript(group: GroupProcess[]): void {
  for (const p of group) {
    expect(p.command).not.toMatch(TYPESCRIPT);
    expect(p.nodeOptions).not.toMatch(TYPESCRIPT);
    expect(p.command).not.toMatch(/esbuild/);
    // A node process's program is JavaScript: the launcher (given the source's path, it runs the
    // compiled file) or a compiled file.
    const [command, ...args] = p.command.split(' ');
    if (/(^|\/)node$/.test(command)) expect(args.find((arg) => !arg.startsWith('-'))).toMatch(/\.m?js$/);
  }
}

it('runs `npm start` as compiled JavaScript: the supervisor and its four apps, with no TypeScript loader', async () => {
  const app = spawnProcess('npm', ['start'], productionEnv());
  try {
    const group = await startedGroup(app, [/api listening/, /scheduler started/, /executor started/, /notifier started/]);
    expectNoTypeScript(group);
    expect(group.find((p) => p.command.endsWith('scripts/run.mjs scripts/start.ts'))).toBeDefined();
    for (const name of APPS) {
      const child = group.filter((p) => p.command.endsWith(path.join(repoRoot, 'apps', name, 'dist', 'main.js')));
      expect(child).toHaveLength(1);
      // The workers that mostly idle get the smaller young generation; the API and the executor, on the hot path, V8's own (docs/OPERATIONS.md).
      expect(child[0].nodeOptions).toBe(name === 'scheduler' || name === 'notifier' ? '--max-semi-space-size=4' : '');
    }
  } finally {
    await app.kill('SIGKILL');
  }
});

it('runs `npm start` with ALL_IN_ONE=1 as one compiled process', async () => {
  const app = spawnProcess('npm', ['start'], productionEnv({ ALL_IN_ONE: '1' }));
  try {
    const group = await startedGroup(app, [/api listening/, /scheduler started/, /executor started/, /notifier started/]);
    expectNoTypeScript(group);
    expect(group.filter((p) => /(^|\/)node /.test(p.command)).map((p) => p.command)).toEqual([`node scripts/run.mjs scripts/start.ts`]);
  } finally {
    await app.kill('SIGKILL');
  }
});

it.each(APPS.map((name) => [name]))('runs `npm run start -w apps/%s` as its compiled JavaScript', async (name) => {
  const app = spawnProcess('npm', ['run', 'start', '-w', `apps/${name}`], productionEnv());
  try {
    const group = await startedGroup(app, [name === 'api' ? /api listening/ : new RegExp(`${name} started`)]);
    expectNoTypeScript(group);
    expect(group.map((p) => p.command)).toContain('node ../../scripts/run.mjs src/main.ts');
  } finally {
    await app.kill('SIGKILL');
  }
});

it('refuses to start in production when the compiled file is missing, saying to build', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'unbuilt-'));
  try {
    await mkdir(path.join(dir, 'src'));
    await writeFile(path.join(dir, 'src', 'main.ts'), 'process.exit(0);\n');
    const app = spawnProcess(process.execPath, [path.join(repoRoot, 'scripts/run.mjs'), path.join(dir, 'src', 'main.ts')], { NODE_ENV: 'production' });
    expect(await app.exited).toBe(78);
    expect(app.output()).toMatch(/dist\/main\.js does not exist: with NODE_ENV=production the service runs its compiled JavaScript\. Run `npm run build` first\./);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
