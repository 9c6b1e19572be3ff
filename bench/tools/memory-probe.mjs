// Loaded with `node --import` (through NODE_OPTIONS) into every process of the service when
// bench/tools/idle-memory.ts runs with --breakdown: records each ES module the process loads
// (through a module resolve hook, on the loader thread; CommonJS modules are read from the
// require cache) and, on SIGUSR2, writes its memory figures and the modules per package to
// MEMORY_PROBE_DIR/<pid>.json. The hook thread costs memory of its
// own, so the RSS the tool reports comes from a run without this probe.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import { MessageChannel } from 'node:worker_threads';

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  const loaded = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => loaded.add(url));
  port1.unref();
  const hooks = `
    let port;
    export function initialize(data) { port = data.port; }
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      port.postMessage(result.url);
      return result;
    }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

  /** `node_modules/<name>` (or `@scope/name`) of a module URL; the repository's own files by folder. */
  const owner = (url) => {
    if (!url.startsWith('file:')) return url.startsWith('node:') ? 'node:' : url.slice(0, 20);
    const file = decodeURIComponent(new URL(url).pathname);
    const inModules = file.lastIndexOf('/node_modules/');
    if (inModules >= 0) {
      const parts = file.slice(inModules + 14).split('/');
      return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    }
    return path.relative(process.cwd(), file).split('/').slice(0, 3).join('/');
  };

  process.on('SIGUSR2', () => {
    const packages = {};
    const required = Object.keys(createRequire(import.meta.url).cache).map((file) => `file://${file}`);
    const all = new Set([...loaded, ...required]);
    for (const url of all) {
      const name = owner(url);
      packages[name] = (packages[name] ?? 0) + 1;
    }
    const memory = process.memoryUsage();
    // Committed bytes of each V8 heap space (new space is the young generation, code space the compiled code).
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    // Prisma loads its query compiler (WebAssembly) with its first query: which processes did.
    const prismaCompiler = [...all].some((url) => url.includes('/query_compiler_'));
    writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ pid: process.pid, argv: process.argv, memory, spaces, modules: all.size, packages, prismaCompiler }));
  });
}
