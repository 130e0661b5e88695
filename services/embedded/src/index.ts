export { startEmbedded, type EmbeddedOptions, type EmbeddedService } from './service.js';
