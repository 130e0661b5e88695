export {
  createGateway,
  GATEWAY_SCHEMA,
  SERVICE_VERSION,
  type Gateway,
  type GatewayOptions,
} from './gateway.js';
export { gatewaySecuritySettings, type GatewaySecuritySettings } from './settings.js';
export { developmentKeyPath } from './security/api-keys/development-key.js';
