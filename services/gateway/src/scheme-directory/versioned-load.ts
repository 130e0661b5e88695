import { ApiError } from '@vop/http';
import type { Response } from 'express';

/** If-Match: "3" or 3 → 3; absent → undefined. The version an admin load replaces. */
export function expectedVersionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const digits = ifMatch.trim().replace(/^W\//, '').replaceAll('"', '');
  if (!/^\d{1,9}$/.test(digits))
    throw new ApiError(400, 'INVALID_REQUEST', 'If-Match must be a table version', {
      field: 'If-Match',
    });
  return Number(digits);
}

/** The answer to a load or a read of a versioned table: its version, also as the ETag. */
export function sendVersion(res: Response, loaded: { version: number }): void {
  res.setHeader('ETag', `"${loaded.version}"`);
  res.json(loaded);
}
