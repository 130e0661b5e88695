import type { Express, RequestHandler } from 'express';
import { match } from 'path-to-regexp';
import { familyFor, isUncovered } from './route-families.js';

/** What Express 5's router keeps of a route: its template(s), its methods and its handlers. */
export interface MountedRoute {
  path: string | string[];
  methods: Record<string, boolean>;
  stack: { handle: RequestHandler; method?: string }[];
}

/** What Express 5's router keeps of a router: how it matches and what it holds. */
export interface MountedRouter {
  stack: RouterLayer[];
  caseSensitive?: boolean;
  strict?: boolean;
}

interface RouterLayer {
  rawPath?: string | string[];
  route?: MountedRoute;
  handle?: Partial<MountedRouter>;
}

function join(prefix: string, path: string): string {
  return `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
}

/**
 * Walks an Express 5 app's routers, nested ones included: `onRouter` for each router with the path it
 * is mounted at, `onRoute` for each route with the whole path of each of its templates.
 */
export function walkRouters(
  app: Express,
  visitors: {
    onRouter?: (router: MountedRouter, prefix: string) => void;
    onRoute?: (route: MountedRoute, templates: string[]) => void;
  },
): void {
  const visit = (router: MountedRouter, prefix: string): void => {
    visitors.onRouter?.(router, prefix);
    for (const layer of router.stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        visitors.onRoute?.(
          layer.route,
          paths.map((path) => join(prefix, path)),
        );
      } else if (layer.handle?.stack) {
        const raw = layer.rawPath ?? '/';
        for (const path of Array.isArray(raw) ? raw : [raw])
          visit(layer.handle as MountedRouter, join(prefix, path));
      }
    }
  };
  visit((app as unknown as { router: MountedRouter }).router, '');
}

/**
 * Whether a raw request path is one a route template serves, matched as the routers match
 * (router.ts): case-sensitively, no trailing slash folded, a parameter standing for one segment.
 */
export function templateMatcher(template: string): (path: string) => boolean {
  const matches = match(template, { decode: false, sensitive: true, trailing: false });
  return (path) => matches(path) !== false;
}

/** Every route an Express 5 app mounts, as `METHOD /path/:param`, nested routers included. */
export function mountedRoutes(app: Express): string[] {
  const routes: string[] = [];
  walkRouters(app, {
    onRoute: (route, templates) => {
      const methods = Object.keys(route.methods).map((method) => method.toUpperCase());
      for (const template of templates)
        for (const method of methods) routes.push(`${method} ${template}`);
    },
  });
  return [...new Set(routes)];
}

/** The mounted routes no row of the route-family table covers (parameters filled with a sample). */
export function uncoveredRoutes(app: Express): string[] {
  return mountedRoutes(app).filter((route) => {
    const [method, template] = route.split(' ', 2) as [string, string];
    return isUncovered(familyFor(template.replace(/:[A-Za-z_]+/g, 'x'), method));
  });
}
