import { SchemeDirectorySnapshot } from '@vop/contracts';
import { ApiError, errors, parseBody, createRouter } from '@vop/http';
import { type Router } from 'express';
import { auditActorOf } from '../audit/actor.js';
import { SnapshotRuleError } from './decider.js';
import { LoadVersionMismatchError } from './load-version-mismatch.js';
import { expectedVersionOf, sendVersion } from './versioned-load.js';
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
      sendVersion(res, loaded);
    } catch (error) {
      if (error instanceof LoadVersionMismatchError)
        throw errors.conflict('VERSION_MISMATCH', error.message);
      if (error instanceof SnapshotRuleError)
        throw new ApiError(400, 'INVALID_REQUEST', error.message, { field: error.field });
      throw error;
    }
  });

  router.get(SCHEME_DIRECTORY_PATH, (_req, res) => {
    const loaded = directory.version();
    if (loaded === undefined) throw errors.notFound('NOT_FOUND', 'No scheme directory is loaded');
    sendVersion(res, loaded);
  });

  return router;
}
