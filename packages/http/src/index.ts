export { servedApiDocument } from './api-document.js';
export {
  authorizeByFamily,
  authorizeInternallyByFamily,
  isAdmin,
  refusalFor,
  refuseUncovered,
  type Listener,
} from './access.js';
export {
  createHttpApp,
  OUTAGE_RETRY_AFTER_SECONDS,
  SECURITY_HEADERS,
  sendError,
  type HttpAppOptions,
} from './app.js';
export {
  loopFailureLog,
  OutageLog,
  unreachableDependency,
  type Dependency,
} from './dependency-outage.js';
export { BASE_PATHS, canonicalPath } from './base-paths.js';
export { isCanonicalPath } from './path-form.js';
export type { DirectRoute } from './direct-routes.js';
export { serverClassesFor, type ServerClasses } from './express-prototypes.js';
export { ApiError, errors, toErrorBody, type ErrorBody, type ErrorContext } from './errors.js';
export { forwardToOwner, type ForwardOptions } from './forward.js';
export { hasUnsafeCharacter, jsonTextHazard, MAX_JSON_DEPTH } from './hostile-input.js';
export {
  principalHeaders,
  trustedPrincipal,
  verifyPrincipalHeaders,
  PRINCIPAL_HEADER,
  PRINCIPAL_SIGNATURE_HEADER,
} from './internal-principal.js';
export { createInternalApp, type InternalAppOptions } from './internal-app.js';
export { formatUptime, opsRoutes, type ReadinessCheck } from './ops-routes.js';
export { principalOf, setPrincipal, type Principal } from './principal.js';
export { correlationIdOf, requestMetadata } from './request-context.js';
export { requestFamily } from './request-family.js';
export { mountedRoutes, uncoveredRoutes, walkRouters } from './route-coverage.js';
export { createRouter } from './router.js';
export {
  familyFor,
  isUncovered,
  LONGEST_DEADLINE_MS,
  ownedBy,
  ROUTE_FAMILIES,
  UNCOVERED_FAMILY,
  type Access,
  type ApiKeyScope,
  type ErrorFormat,
  type RateBudget,
  type RouteFamily,
  type ServiceName,
} from './route-families.js';
export {
  startHttpServer,
  startHttpsServer,
  type HttpsServerOptions,
  type RunningServer,
} from './server.js';
export { parseBody, parseParam, type ParseBodyOptions } from './validation.js';
export {
  createRateLimiters,
  type LimiterBudget,
  type RateLimitDatabase,
  type RateLimiters,
} from './rate-limiters.js';
