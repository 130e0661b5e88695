import type { Express } from 'express';
import { mountedRoutes, templateMatcher } from './route-coverage.js';

/**
 * The methods an app serves on a path, from its mounted route templates (read once, on first use,
 * when every router is mounted): a known path asked with another method is 405 with `Allow`, not 404.
 */
export function allowedMethods(app: Express): (path: string) => string[] {
  let routes: { method: string; matches: (path: string) => boolean }[] | undefined;
  return (path) => {
    routes ??= mountedRoutes(app).map((route) => {
      const [method, template] = route.split(' ', 2) as [string, string];
      return { method, matches: templateMatcher(template) };
    });
    const methods = new Set(
      routes.filter((route) => route.matches(path)).map((route) => route.method),
    );
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
