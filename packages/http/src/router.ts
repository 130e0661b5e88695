import { Router } from 'express';

/**
 * The only way a route is mounted in this repository: a router that matches case-sensitively and
 * strictly (no trailing slash folded away), as the route-family table does (route-families.ts). With
 * Express's default routers, `/ADMIN/audit` reached the admin handler while the table, reading it
 * case-sensitively, gave it to no family (issue 39). `createHttpApp` refuses to start with any other
 * router mounted (route-family-guard.ts); lint forbids `Router` from express outside this package.
 */
export function createRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}
