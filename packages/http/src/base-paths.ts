/** Every route is served at the root and under the /v1 and /vop/api/v1 base forms. */
export const BASE_PATHS = ['/', '/v1', '/vop/api/v1'];

const VERSION_PREFIX = /^\/(?:v1|vop\/api\/v1)(?=\/)/;

/** Strips the /v1 and /vop/api/v1 base forms so every base path shares one route table. */
export function canonicalPath(path: string): string {
  return path.replace(VERSION_PREFIX, '');
}
