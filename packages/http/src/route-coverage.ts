import type { Express } from 'express';
import { familyFor, UNMATCHED_FAMILY } from './route-families.js';

interface RouterLayer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

function join(prefix: string, path: string): string {
  return `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/** Every route an Express 5 app mounts, as `METHOD /path/:param`, nested routers included. */
export function mountedRoutes(app: Express): string[] {
  const routes: string[] = [];
  const visit = (stack: RouterLayer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        const methods = Object.keys(layer.route.methods).map((method) => method.toUpperCase());
        for (const path of paths)
          for (const method of methods) routes.push(`${method} ${join(prefix, path)}`);
      } else if (layer.handle?.stack) {
        const raw = layer.rawPath ?? '/';
        for (const path of Array.isArray(raw) ? raw : [raw])
          visit(layer.handle.stack, join(prefix, path));
      }
    }
  };
  visit((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  return [...new Set(routes)];
}

/** The mounted routes no row of the route-family table covers (parameters filled with a sample). */
export function uncoveredRoutes(app: Express): string[] {
  return mountedRoutes(app).filter((route) => {
    const [method, template] = route.split(' ', 2) as [string, string];
    return familyFor(template.replace(/:[A-Za-z_]+/g, 'x'), method) === UNMATCHED_FAMILY;
  });
}
