export { startEmbedded, type EmbeddedOptions, type EmbeddedService } from './embedded.js';
