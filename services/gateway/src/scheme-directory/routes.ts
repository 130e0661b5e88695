import { SchemeDirectorySnapshot } from '@vop/contracts';
import { ApiError, errors, parseBody, createRouter } from '@vop/http';
import { type Router } from 'express';
import { auditActorOf } from '../audit/actor.js';
import { DirectoryVersionMismatchError, SnapshotRuleError } from './decider.js';
import { expectedVersionOf } from './if-match.js';
import type { SchemeDirectory } from './scheme-directory.js';

/** The largest directory file accepted (the EDS holds a few thousand participants). */
export const SCHEME_DIRECTORY_BODY_LIMIT = '16mb';
export const SCHEME_DIRECTORY_PATH = '/admin/scheme-directory';

/**
 * Management of the scheme directory (admin certificate; every write audited by the edge):
 * PUT replaces the whole snapshot and answers its version; GET says which version is served.
 */
export function schemeDirectoryRoutes(options: {
  directory: SchemeDirectory;
  clock: () => Date;
}): Router {
  const { directory } = options;
  const router = createRouter();

  router.put(SCHEME_DIRECTORY_PATH, async (req, res) => {
    const snapshot = parseBody(SchemeDirectorySnapshot, req.body, {
      indexedPaths: true,
      explain: true,
    });
    const expectedVersion = expectedVersionOf(req.get('if-match'));
    try {
      const loaded = await directory.load({
        snapshot,
        loadedBy: auditActorOf(res),
        now: options.clock(),
        ...(expectedVersion !== undefined && { expectedVersion }),
      });
      res.setHeader('ETag', `"${loaded.version}"`);
      res.json(loaded);
    } catch (error) {
      if (error instanceof DirectoryVersionMismatchError)
        throw errors.conflict('VERSION_MISMATCH', error.message);
      if (error instanceof SnapshotRuleError)
        throw new ApiError(400, 'INVALID_REQUEST', error.message, { field: error.field });
      throw error;
    }
  });

  router.get(SCHEME_DIRECTORY_PATH, (_req, res) => {
    const loaded = directory.version();
    if (loaded === undefined) throw errors.notFound('NOT_FOUND', 'No scheme directory is loaded');
    res.setHeader('ETag', `"${loaded.version}"`);
    res.json(loaded);
  });

  return router;
}
