export { createGateway, GATEWAY_SCHEMA, SERVICE_VERSION, type Gateway, type GatewayOptions } from './gateway.js';
export { startHttpsServer, type HttpsServerOptions } from './http/server.js';
export { canonicalPath, errorFormatFor } from './http/errors.js';
