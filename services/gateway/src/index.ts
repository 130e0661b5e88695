export {
  createGateway,
  GATEWAY_SCHEMA,
  SERVICE_VERSION,
  type Gateway,
  type GatewayOptions,
} from './service.js';
export { gatewaySecuritySettings, type GatewaySecuritySettings } from './settings.js';
export { requestingSettings } from './requesting/settings.js';
export { singleChecksFirst } from './single-checks-first.js';
export { DEVELOPMENT_KEY_SCOPES, developmentKeyPath } from './security/api-keys/development-key.js';
export { gatewayAccountCopy } from './verifications/account-copy.js';
