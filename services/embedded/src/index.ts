export { startEmbedded, type EmbeddedOptions, type EmbeddedService } from './service.js';
export * from './scheme-in-a-box/index.js';
