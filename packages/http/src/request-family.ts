import type { Request, Response } from 'express';
import { familyFor, type RouteFamily } from './route-families.js';

const FAMILY = Symbol('route-family');

/**
 * The request's route family, looked up once and kept on the response: every middleware of the edge
 * and the error renderer ask for it. From the original URL, so a mounted router sees the same family.
 */
export function requestFamily(req: Request, res: Response): RouteFamily {
  const locals = res.locals as Record<symbol, RouteFamily | undefined>;
  return (locals[FAMILY] ??= familyFor(req.originalUrl.split('?')[0] ?? '/', req.method));
}
