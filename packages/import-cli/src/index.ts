export {
  closeTarget,
  CONTENT_TYPES,
  formatOf,
  importStatus,
  uploadAccountFile,
  uploadAccountStream,
  type ImportFileFormat,
  type ImportTarget,
  type UploadOptions,
  type UploadResult,
} from './upload.js';
export { renderSummary } from './summary.js';
