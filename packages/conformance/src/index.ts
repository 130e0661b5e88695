export type {
  CaseResult,
  ConformanceCase,
  ConformanceExpectation,
  ConformanceFixture,
  ConformanceGroup,
  ConformanceRequest,
  CredentialName,
  EpcMatchCode,
} from './types.js';
export { EPC_PATH, EPC_RESPONDER_CASES } from './epc-responder-cases.js';
export { placeholderFiller } from './placeholders.js';
export {
  checkResponse,
  runConformance,
  type ClientCredential,
  type ConformanceRunOptions,
} from './runner.js';
