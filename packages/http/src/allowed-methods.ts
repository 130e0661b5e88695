import type { Express } from 'express';
import { mountedRoutes, templateMatcher } from './route-coverage.js';

/** A template without parameters names one resource: `/webhooks/dead-letters`, not `/webhooks/:webhookId`. */
export const isStaticTemplate = (template: string): boolean => !/[:*]/.test(template);

/**
 * The methods an app serves on a path, from its mounted route templates (read once, on first use,
 * when every router is mounted): a known path asked with another method is 405 with `Allow`, not 404.
 * A path that a template without parameters spells is that resource alone (route-family-guard.ts keeps
 * a parameter from taking it), so only those templates' methods count.
 */
export function allowedMethods(app: Express): (path: string) => string[] {
  let routes:
    { method: string; template: string; matches: (path: string) => boolean }[] | undefined;
  return (path) => {
    routes ??= mountedRoutes(app).map((route) => {
      const [method, template] = route.split(' ', 2) as [string, string];
      return { method, template, matches: templateMatcher(template) };
    });
    const matching = routes.filter((route) => route.matches(path));
    const exact = matching.filter((route) => isStaticTemplate(route.template));
    const methods = new Set((exact.length > 0 ? exact : matching).map((route) => route.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
