/**
 * The one spelling of a path this service serves: a leading slash, segments of RFC 3986 path
 * characters, no empty segment (`//`), no dot segment (`.`, `..`), no trailing slash, no `;`
 * parameters, and percent-encoding only where it is needed: never of a character that needs none
 * (letters, digits, `-`, `.`, `_`, `~`: RFC 3986 §6.2.2.2 makes `%41` the same as `A`), never of `/`,
 * `\` or `%` (a decoder would change the path's shape or decode twice). Every route template and every
 * row of the route-family table is written so; the table and the routers match the raw path, and
 * Express decodes only a parameter's value, so an encoded character (`%2C`, `%C3%A9`) can only ever
 * be part of a parameter. Any other spelling (`%41`, `%2F`, `%2e%2e`, `/./`, `/admin/`, `;x`, an
 * absolute URI, `*`) is covered by no row and answered 404 before authentication (issue 39). Case is
 * not folded here: the table and the routers both match case-sensitively (route-families.ts,
 * router.ts), so `/ADMIN/audit` is simply another path, which no row covers.
 */
const CANONICAL_PATH = /^(?:\/(?:[A-Za-z0-9\-_~!$&'()*+,=:@.]|%[0-9A-Fa-f]{2})+)*$/;
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;
/** Encodings of the unreserved characters, of `/`, `\` and `%`. */
const NEEDLESS_OR_SHAPING_ESCAPE =
  /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DdEeFf5]|5[CcFf]|7[Ee])/;

export function isCanonicalPath(path: string): boolean {
  if (path === '/') return true;
  return (
    path.length > 0 &&
    CANONICAL_PATH.test(path) &&
    !DOT_SEGMENT.test(path) &&
    !NEEDLESS_OR_SHAPING_ESCAPE.test(path)
  );
}
