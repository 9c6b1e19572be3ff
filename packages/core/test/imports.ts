import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** One import of one source file: the file it names, and whether it is erased at compile time (`import type`). */
export interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

// `import ... from './x.js'`, `export ... from './x.js'`, `import('./x.js')`; relative specifiers only.
const SPECIFIER = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'generated' || name === 'dist') continue;
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Whether every name an import brings in is marked `type` (`import { type A, type B }`). */
function namesAreTypes(clause: string): boolean {
  const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1].split(',').map((n) => n.trim()).filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

/** Every relative import of the non-test TypeScript files under `dirs`, resolved to files. */
export function importsUnder(...dirs: string[]): Import[] {
  const imports: Import[] = [];
  for (const file of dirs.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[4] ?? m[5];
      const resolved = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = resolved.endsWith('.ts') ? resolved : path.join(resolved, 'index.ts');
      const typeOnly = m[5] === undefined && (m[2] !== undefined || namesAreTypes(m[3]));
      imports.push({ from: file, to, typeOnly });
    }
  }
  return imports;
}

/** The cycles of a directed graph given as edges (Tarjan's strongly connected components of more than one node, or a self-loop). */
export function cycles(edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const child of next.get(node) ?? []) {
      if (!index.has(child)) {
        visit(child);
        low.set(node, Math.min(low.get(node)!, low.get(child)!));
      } else if (onStack.has(child)) low.set(node, Math.min(low.get(node)!, index.get(child)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (next.get(node) ?? []).includes(node)) found.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}
