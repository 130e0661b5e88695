export {
  createGateway,
  gatewaySecuritySettings,
  GATEWAY_SCHEMA,
  SERVICE_VERSION,
  type Gateway,
  type GatewayOptions,
  type GatewaySecuritySettings,
} from './gateway.js';
export { developmentKeyPath } from './security/api-keys/development-key.js';
export { setPrincipal, principalOf, type Principal } from './security/principal.js';
export { startHttpsServer, type HttpsServerOptions } from './http/server.js';
export { canonicalPath, errorFormatFor } from './http/errors.js';
