// `npm run build`: compiles every workspace to JavaScript for production, one .js file per .ts
// file (docs/adr/016-compiled-output-for-production.md): `<workspace>/src` to `<workspace>/dist`,
// and the supervisor and migration command to `scripts/dist`. Imports of another workspace are
// rewritten to the relative path of its compiled file, so compiled code never goes through a
// package's `exports`, which name the TypeScript sources. Type checking is `npm run typecheck`.
import { build, type Plugin } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Workspace {
  name: string;
  dir: string;
  /** Where the sources are: `src`, or the folder itself for `scripts`. */
  sourceDir: string;
  outDir: string;
  entries: string[];
  exports: Record<string, string>;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : sources(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The npm workspaces (package.json `workspaces`, `folder/*` patterns) that have sources, and `scripts`. */
export function workspaces(): Workspace[] {
  const patterns = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const dirs = patterns.flatMap((pattern) => {
    const parent = path.join(root, pattern.replace(/\/\*$/, ''));
    return readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(parent, e.name));
  });
  const found: Workspace[] = dirs
    .filter((dir) => existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'src')))
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, string> };
      const sourceDir = path.join(dir, 'src');
      return { name: pkg.name, dir, sourceDir, outDir: path.join(dir, 'dist'), entries: sources(sourceDir), exports: pkg.exports ?? {} };
    });
  const scripts = path.join(root, 'scripts');
  // What runs only in development (this build, `npm run dev`, the OpenAPI contract generator, the
  // fault suite's helpers) is not compiled: production never runs it, and its dev dependencies are
  // not in the image.
  const developmentOnly = new Set(['build.ts', 'dev.ts', 'contract-schemas.ts'].map((file) => path.join(scripts, file)));
  const faults = path.join(scripts, 'faults') + path.sep;
  const scriptEntries = sources(scripts).filter((file) => !developmentOnly.has(file) && !file.startsWith(faults));
  found.push({ name: 'scripts', dir: scripts, sourceDir: scripts, outDir: path.join(scripts, 'dist'), entries: scriptEntries, exports: {} });
  return found;
}

/** The compiled file of a source file of `workspace`. */
export function compiledPath(workspace: Workspace, source: string): string {
  return path.join(workspace.outDir, path.relative(workspace.sourceDir, source)).replace(/\.ts$/, '.js');
}

/**
 * Keeps every import as it is (each file is its own output), except imports of another
 * workspace, which become the relative path of the compiled file its `exports` name.
 */
function rewriteImports(all: Workspace[], workspace: Workspace): Plugin {
  const byName = new Map(all.map((w) => [w.name, w]));
  return {
    name: 'file-for-file',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const match = /^(@cronsvc\/[^/]+)(\/.*)?$/.exec(args.path);
        if (!match) return { path: args.path, external: true };
        const target = byName.get(match[1]);
        const exported = target?.exports[`.${match[2] ?? ''}`];
        if (!target || !exported || !exported.startsWith('./src/')) {
          return { errors: [{ text: `${args.path} is not a compiled export of a workspace (imported by ${path.relative(root, args.importer)})` }] };
        }
        const compiled = compiledPath(target, path.join(target.dir, exported));
        const from = path.dirname(compiledPath(workspace, args.importer));
        const relative = path.relative(from, compiled);
        return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
      });
    },
  };
}

export async function buildAll(): Promise<Workspace[]> {
  const all = workspaces();
  for (const workspace of all) rmSync(workspace.outDir, { recursive: true, force: true });
  await Promise.all(
    all.map((workspace) =>
      build({
        absWorkingDir: root,
        entryPoints: workspace.entries,
        outdir: workspace.outDir,
        outbase: workspace.sourceDir,
        // Bundling only so that every import passes through the plugin; each file stays its own output.
        bundle: true,
        plugins: [rewriteImports(all, workspace)],
        platform: 'node',
        format: 'esm',
        target: 'node20',
        logLevel: 'warning',
      }),
    ),
  );
  return all;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const built = await buildAll();
  const files = built.reduce((sum, w) => sum + w.entries.length, 0);
  process.stdout.write(`compiled ${files} files of ${built.length} workspaces in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
