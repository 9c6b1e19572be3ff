import type { Express } from 'express';

export interface RouteEntry {
  method: string;
  /** The Express pattern from the mount points down, e.g. `/v1/jobs/:id`. */
  path: string;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

const join = (prefix: string, path: string) => (path === '/' ? prefix || '/' : `${prefix.replace(/\/$/, '')}${path}`);

/**
 * Every route the app answers, read from Express's router stack (mount paths joined to route
 * paths). The OpenAPI test compares this with the document, and request logs and metrics name
 * a request by the pattern it matched, never by its path, which may hold a token.
 */
export function listRoutes(app: Express): RouteEntry[] {
  const out: RouteEntry[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const method of Object.keys(layer.route.methods)) {
          if (method !== '_all') for (const path of paths) out.push({ method: method.toUpperCase(), path: join(prefix, path) });
        }
      } else if (layer.handle?.stack) {
        const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '/';
        walk(layer.handle.stack, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

/**
 * Counts the times routes were added to an app after its tables were read (a lazily loaded router,
 * middleware/lazy-router.ts): the tables below read the app again when it has changed.
 */
export interface RouteVersion {
  current: number;
}

/** Whether the app has a route of this method and pattern; the table is read at the first call. */
export function routeExists(app: Express, version: RouteVersion = { current: 0 }): (method: string, pattern: string) => boolean {
  let known: Set<string> | undefined;
  let readAt = version.current;
  return (method, pattern) => {
    if (readAt !== version.current) {
      known = undefined;
      readAt = version.current;
    }
    known ??= new Set(listRoutes(app).map((r) => `${r.method} ${r.path}`));
    return known.has(`${method} ${pattern}`);
  };
}

/** The label of a request no route matched. */
export const UNMATCHED = '(unmatched)';

interface Pattern {
  path: string;
  methods: Set<string>;
  segments: string[];
  /** Literal segments count first: `/v1/jobs/import` beats `/v1/jobs/:id`. */
  literals: number;
}

// Express matches paths whatever their case, so the names do too.
function segmentsOf(path: string): string[] {
  return path.toLowerCase().split('/').filter(Boolean);
}

function matches(pattern: string[], path: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i];
    if (part.startsWith('*')) return path.length > i;
    if (i >= path.length) return false;
    if (!part.startsWith(':') && part !== path[i]) return false;
  }
  return pattern.length === path.length;
}

/**
 * A function from a request's method and path to the route pattern it matched: the most specific
 * pattern that fits the path, preferring one that has the method (a 405 still names its route);
 * UNMATCHED when none fits. The table is read from the app at the first call, once every route
 * has been added, and again after `version` changes.
 */
export function routeNamer(app: Express, version: RouteVersion = { current: 0 }): (method: string, path: string) => string {
  let table: Pattern[] | undefined;
  let readAt = version.current;
  const build = () => {
    const byPath = new Map<string, Pattern>();
    for (const { method, path } of listRoutes(app)) {
      const found = byPath.get(path);
      if (found) found.methods.add(method);
      else {
        const segments = segmentsOf(path);
        byPath.set(path, { path, methods: new Set([method]), segments, literals: segments.filter((s) => !s.startsWith(':') && !s.startsWith('*')).length });
      }
    }
    return [...byPath.values()].sort((a, b) => b.literals - a.literals || b.segments.length - a.segments.length);
  };
  return (method, path) => {
    if (readAt !== version.current) {
      table = undefined;
      readAt = version.current;
    }
    table ??= build();
    const segments = segmentsOf(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    let fallback: string | undefined;
    for (const pattern of table) {
      if (!matches(pattern.segments, segments)) continue;
      if (pattern.methods.has(wanted)) return pattern.path;
      fallback ??= pattern.path;
    }
    return fallback ?? UNMATCHED;
  };
}
