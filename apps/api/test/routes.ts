import type { Express } from 'express';

interface RouteLayer {
  rawPath?: string | string[];
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: RouteLayer[] };
}

/** Every route of the app as [METHOD, pattern], read from its routing table, so a new route is covered without a list to keep in step. */
export function routesOf(app: Express): [string, string][] {
  const routes: [string, string][] = [];
  const walk = (stack: RouteLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) routes.push([method.toUpperCase(), `${prefix}${layer.route.path === '/' ? '' : layer.route.path}` || '/']);
      } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
        walk(layer.handle.stack, layer.rawPath === '/' ? prefix : `${prefix}${layer.rawPath}`);
      }
    }
  };
  walk((app.router as unknown as { stack: RouteLayer[] }).stack, '');
  return routes;
}

/** The routes of the JSON API: under /v1 (public token routes included) and /admin/v1; not the console's pages. */
export function apiRoutesOf(app: Express): [string, string][] {
  return routesOf(app).filter(([, pattern]) => pattern.startsWith('/v1/') || pattern.startsWith('/admin/v1/'));
}
