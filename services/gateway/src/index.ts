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
