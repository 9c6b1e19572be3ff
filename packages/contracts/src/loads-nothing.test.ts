import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const contractsSrc = new URL('./', import.meta.url).href;

// A resolve hook that appends every module URL the process loads to a file; registered ahead of
// the import under test, after tsx, so it sees what tsx resolved.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RESOLVED_LOG, resolved.url + '\\n');
  return resolved;
}`;
const REGISTER = `data:text/javascript,import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(process.env.RESOLVE_HOOKS));`;

/** Every module URL a fresh Node process resolves while importing `specifier`. */
async function modulesLoadedBy(specifier: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'contracts-load-'));
  const log = path.join(dir, 'resolved.log');
  try {
    await run(process.execPath, ['--import', 'tsx', '--import', REGISTER, '--input-type=module', '-e', `await import(${JSON.stringify(specifier)});`], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: '', RESOLVED_LOG: log, RESOLVE_HOOKS: HOOKS },
      timeout: 30_000,
    });
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('importing @cronsvc/contracts', () => {
  it('loads its own files and nothing else: no package, no Node module that could open a socket or a file', async () => {
    const loaded = await modulesLoadedBy('@cronsvc/contracts');
    expect(loaded).toContain(`${contractsSrc}index.ts`);
    expect(loaded.filter((url) => !url.startsWith(contractsSrc))).toEqual([]);
  });

  it('is told apart from a heavy import by the same check', async () => {
    const loaded = await modulesLoadedBy('@cronsvc/core');
    for (const heavy of ['/@prisma/', '/bullmq/', '/ioredis/', '/pg/', '/winston/']) {
      expect(loaded.some((url) => url.includes(heavy))).toBe(true);
    }
  });

  it('declares no dependencies', async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
  });
});
