import type { Express } from 'express';
import { match } from 'path-to-regexp';
import { mountedRoutes } from './route-coverage.js';

/**
 * The methods an app serves on a path, from its mounted route templates (read once, on first use,
 * when every router is mounted): a known path asked with another method is 405 with `Allow`, not 404.
 */
export function allowedMethods(app: Express): (path: string) => string[] {
  let routes: { method: string; matches: (path: string) => boolean }[] | undefined;
  return (path) => {
    routes ??= mountedRoutes(app).map((route) => {
      const [method, template] = route.split(' ', 2) as [string, string];
      // As the routers match (router.ts): case-sensitively, no trailing slash.
      const matcher = match(template, { decode: false, sensitive: true, trailing: false });
      return { method, matches: (candidate: string) => matcher(candidate) !== false };
    });
    const methods = new Set(
      routes.filter((route) => route.matches(path)).map((route) => route.method),
    );
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
