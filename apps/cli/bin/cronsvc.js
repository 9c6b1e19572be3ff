#!/usr/bin/env node
// The CLI is TypeScript. On first use, and again whenever one of its source files changes, esbuild
// bundles it into dist/cronsvc.mjs (commander stays a plain import), which starts in a quarter of
// the CPU time that compiling each module on load takes. Where the bundle cannot be built or
// written (a read-only install, say), the sources run through tsx instead. Both are dependencies
// of this package, so `npx cronsvc` and `npm install -g ./apps/cli` need no build step.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bundle = path.join(root, 'dist', 'cronsvc.mjs');
const inputsFile = path.join(root, 'dist', 'inputs.json');

/** True when the bundle exists and no file it was built from changed since. */
async function bundleIsFresh() {
  try {
    const built = (await stat(bundle)).mtimeMs;
    const inputs = JSON.parse(await readFile(inputsFile, 'utf8'));
    const times = await Promise.all(inputs.map(async (file) => (await stat(file)).mtimeMs));
    return times.every((time) => time <= built);
  } catch {
    return false;
  }
}

/** Written under temporary names and renamed, so CLIs started at the same time never read half a file. */
async function buildBundle() {
  const { build } = await import('esbuild');
  const temporary = `${bundle}.${process.pid}.tmp`;
  await mkdir(path.dirname(bundle), { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // CommonJS packages that require Node's modules by name, which an ESM bundle cannot: loaded from node_modules.
    external: ['commander', 'yaml'],
    outfile: temporary,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs).map((file) => path.resolve(root, file));
  await writeFile(`${inputsFile}.${process.pid}.tmp`, JSON.stringify(inputs));
  await rename(`${inputsFile}.${process.pid}.tmp`, inputsFile);
  await rename(temporary, bundle);
}

let bundled = await bundleIsFresh();
if (!bundled) bundled = await buildBundle().then(() => true, () => false);
if (bundled) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
