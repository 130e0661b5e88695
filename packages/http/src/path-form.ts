/**
 * The one spelling of a path this service serves: a leading slash, segments of RFC 3986 path
 * characters without percent-encoding and without `;` parameters, no empty segment (`//`), no dot
 * segment (`.`, `..`) and no trailing slash. Every route template in the code is written so, and so is
 * every row of the route-family table; a request spelt any other way (`%41`, `%2F`, `/./`, `/admin/`,
 * `;x`, an absolute URI, `*`) is covered by no row and answered 404 before authentication (issue 39).
 * Case is not folded here: the table and the routers both match case-sensitively (route-families.ts,
 * router.ts), so `/ADMIN/audit` is simply another path, which no row covers.
 */
const CANONICAL_PATH = /^(?:\/[A-Za-z0-9\-_~!$&'()*+,=:@.]+)*$/;
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;

export function isCanonicalPath(path: string): boolean {
  if (path === '/') return true;
  return path.length > 0 && CANONICAL_PATH.test(path) && !DOT_SEGMENT.test(path);
}
