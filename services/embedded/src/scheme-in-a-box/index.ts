export {
  DEFAULT_SCHEME_DIR,
  DEFAULT_SCHEME_PORTS,
  startScheme,
  type RunningScheme,
  type SchemeMember,
  type SchemeOptions,
} from './scheme.js';
export { SCHEME_BANKS, schemeIban, type SchemeAccount, type SchemeBank } from './banks.js';
export {
  launchEmbeddedBank,
  type BankDeployment,
  type BankLauncher,
  type LaunchedBank,
} from './bank-process.js';
export { PortInUseError } from './ports.js';
export type { ClientTls } from './bank-request.js';
