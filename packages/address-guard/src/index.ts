export {
  AddressRefusedError,
  createAddressGuard,
  type AddressGuard,
  type AddressGuardOptions,
  type AddressRefusal,
} from './address-guard.js';
export { createAddressJudge } from './address-judge.js';
export { parseNetwork } from './ip-address.js';
