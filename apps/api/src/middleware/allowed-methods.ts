import type { Application } from 'express';

/**
 * The methods the app answers for a path, read from its own routing table, so a method a known
 * path does not have can be a 405 with the right `Allow` without a second list of routes to keep
 * in step. It walks the table as Express's router dispatches: each layer's matcher on the path
 * (the raw, still percent-encoded path, as the router sees it), a mounted router on the rest.
 */
interface Layer {
  matchers?: ((path: string) => false | { path: string })[];
  route?: { methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function methodsIn(stack: Layer[], path: string, found: Set<string>): void {
  for (const layer of stack) {
    const match = layer.matchers?.map((matcher) => matcher(path)).find(Boolean);
    if (!match) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) if (on) found.add(method === '_all' ? '*' : method.toUpperCase());
    } else if (layer.handle?.stack) {
      methodsIn(layer.handle.stack, path.slice(match.path.length) || '/', found);
    }
  }
}

/** The methods routed for `path` (GET, POST, ...; `*` when a route takes every method). */
export function allowedMethods(app: Application, path: string): string[] {
  const found = new Set<string>();
  methodsIn((app.router as unknown as { stack: Layer[] }).stack, path, found);
  return [...found];
}
