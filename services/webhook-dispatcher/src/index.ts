export {
  createWebhookDispatcher,
  WEBHOOK_SCHEMA,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './service.js';
export { webhookSettings, type WebhookSettings } from './settings.js';
export { signedHeaders, signerFor } from './deliveries/sender.js';
