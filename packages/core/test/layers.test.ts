import path from 'node:path';
import { cycles, importsUnder } from './imports.js';
import { repoRoot } from './test-context.js';

// Core's folders in layers, lowest first (docs/ARCHITECTURE.md, "Core in layers"). A folder may
// import itself and any folder listed before it, never one listed after: the graph of folders has
// no cycle, and when two domains seem to need each other the shared piece moves down.
export const CORE_LAYERS: { layer: string; folders: string[] }[] = [
  { layer: 'foundation', folders: ['errors', 'ids', 'validation', 'config', 'logging', 'tracing', 'metrics', 'lists'] },
  { layer: 'infrastructure', folders: ['db', 'queues', 'http', 'templates', 'deps'] },
  {
    layer: 'domains',
    folders: ['access', 'secrets', 'signatures', 'workspaces', 'attempts', 'hosts', 'notifications', 'fires', 'executions', 'schedules', 'jobs', 'workflows', 'deliveries', 'monitors', 'dlq', 'history'],
  },
  { layer: 'runners', folders: ['runners'] },
  { layer: 'runtime', folders: ['runtime'] },
];

const src = path.join(repoRoot, 'packages/core/src');
const order = CORE_LAYERS.flatMap((l) => l.folders);
const folderOf = (file: string) => path.relative(src, file).split(path.sep)[0];

describe("core's layers", () => {
  const imports = importsUnder(src).filter((i) => i.from.startsWith(src) && i.to.startsWith(src));
  const inFolders = imports.filter((i) => path.relative(src, i.from).includes(path.sep) && path.relative(src, i.to).includes(path.sep));

  it('places every folder of core in exactly one layer', () => {
    const folders = [...new Set(inFolders.flatMap((i) => [folderOf(i.from), folderOf(i.to)]))].sort();
    expect(folders.filter((f) => !order.includes(f))).toEqual([]);
    expect(new Set(order).size).toBe(order.length);
  });

  it('has no import, type imports included, from a folder to one listed after it', () => {
    const upward = inFolders
      .filter((i) => order.indexOf(folderOf(i.to)) > order.indexOf(folderOf(i.from)))
      .map((i) => `${path.relative(src, i.from)} -> ${path.relative(src, i.to)}`);
    expect(upward).toEqual([]);
  });
});

describe('import cycles between files', () => {
  it('has none in apps/ and packages/ among imports that run (type-only imports are erased)', () => {
    const dirs = ['apps', 'packages'].map((d) => path.join(repoRoot, d));
    const edges = importsUnder(...dirs).filter((i) => !i.typeOnly).map((i) => ({ from: path.relative(repoRoot, i.from), to: path.relative(repoRoot, i.to) }));
    expect(cycles(edges)).toEqual([]);
  });
});
