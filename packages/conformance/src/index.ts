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
  TARGET_UNREACHABLE,
  type ClientCredential,
  type ConformanceRunOptions,
  type ConnectionGuard,
} from './runner.js';
export {
  SCHEME_SUITE_CASES,
  SCHEME_SUITE_GROUPS,
  SCHEME_SUITE_NAME,
} from './scheme-suite/index.js';
export {
  complianceReport,
  compliancePercent,
  junitXml,
  type ComplianceReport,
  type ComplianceSummary,
} from './compliance-report.js';
export {
  isReferenceDataVersion,
  LATEST_REFERENCE_DATA_VERSION,
  loadReferenceData,
  REFERENCE_DATA_SET_NAME,
  REFERENCE_DATA_VERSIONS,
  resolveReferenceDataVersion,
  ReferenceAccount,
  ReferenceDataSet,
  type ReferenceDataVersion,
  type SchemeFixture,
} from './reference-data.js';
export { waitForReferenceData, type ReferenceDataWait } from './reference-data-ready.js';
export {
  openReferenceAccounts,
  referenceAccountProbes,
} from './scheme-suite/reference-account-probes.js';
export {
  runSchemeSuite,
  type SchemeSuiteReport,
  type SchemeSuiteRunOptions,
  type SchemeSuiteTarget,
} from './suite-run.js';
export type {
  ReceivedRequest,
  RequesterUnderTest,
  RequesterVerdict,
  RequestingCase,
  RequestingCaseResult,
  RequestingCheck,
  RequestingExpectation,
  RequestingScript,
  ResponderUnderTest,
} from './requesting-types.js';
export { REQUESTING_CASES } from './requesting-cases.js';
export {
  requestFailures,
  runRequestingCase,
  runRequestingConformance,
  type RequestingResponders,
} from './requesting-runner.js';
