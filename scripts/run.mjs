// `node scripts/run.mjs <file.ts> [args...]`: what `npm start`, `npm run migrate` and
// `npm run start -w apps/<name>` call (docs/adr/016-compiled-output-for-production.md). With
// NODE_ENV=production it runs the compiled JavaScript of the file (`src/x.ts` -> `dist/x.js`,
// `scripts/x.ts` -> `scripts/dist/x.js`) in this process, with no TypeScript tooling loaded, and
// exits 78 when `npm run build` has not made it; otherwise it runs the TypeScript through tsx.
// Plain JavaScript, so that it runs before anything is compiled.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [source, ...rest] = process.argv.slice(2);
if (!source?.endsWith('.ts')) {
  process.stderr.write('usage: node scripts/run.mjs <file.ts> [args...]\n');
  process.exit(64);
}

/** `a/src/b/c.ts` -> `a/dist/b/c.js`; a file outside any `src` folder compiles to `dist` beside it. */
function compiledPath(file) {
  const parts = path.resolve(file).split(path.sep);
  const src = parts.lastIndexOf('src');
  if (src >= 0) parts[src] = 'dist';
  else parts.splice(parts.length - 1, 0, 'dist');
  return parts.join(path.sep).replace(/\.ts$/, '.js');
}

if (process.env.NODE_ENV === 'production') {
  const compiled = compiledPath(source);
  if (!existsSync(compiled)) {
    process.stderr.write(
      `${path.relative(process.cwd(), compiled)} does not exist: with NODE_ENV=production the service runs its compiled JavaScript. Run \`npm run build\` first.\n`,
    );
    process.exit(78);
  }
  process.argv = [process.argv[0], compiled, ...rest];
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  process.argv = [process.argv[0], path.resolve(source), ...rest];
  await import(pathToFileURL(path.resolve(source)).href);
}
