import { ApiError } from '@vop/http';

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
