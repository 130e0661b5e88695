import type { ResponderEndpoint, ResponderFailureReason } from '@vop/contracts';
import { normaliseBic, type SchemeParticipantIndex } from './adherence.js';
import { bankCodeOf } from './bank-code-positions.js';
import type { BankCodeIndex } from './bank-code-table.js';

/** The EPC API versions (major.minor) our requester speaks: EPC103-24 v1.1.1. */
export const SUPPORTED_API_VERSIONS: ReadonlySet<string> = new Set(['1.1']);

export type PayeeBank =
  /** Decided here: one of our BICs, or a country the bank-code table routes nothing for. */
  | { kind: 'ours'; bic: string | undefined }
  /** Asked of the responding participant, at its usable endpoints by priority. */
  | {
      kind: 'elsewhere';
      bic: string;
      /** Its PSD2 authorisation number. */
      participant: string;
      endpoints: { uri: string; priority: number; apiVersion: string }[];
    }
  | {
      kind: 'unroutable';
      bic: string | undefined;
      reason: Extract<ResponderFailureReason, 'RESPONDER_UNKNOWN' | 'RESPONDER_NO_ENDPOINT'>;
    };

export interface PayeeBankFinder {
  /** `iban` in electronic form, already valid; `bic` the caller's partyAgent, when it named one. */
  find(iban: string, bic: string | undefined, now: Date): PayeeBank;
}

function isUsable(endpoint: ResponderEndpoint, now: Date): boolean {
  const [major, minor] = endpoint.apiVersion.split('.');
  if (!SUPPORTED_API_VERSIONS.has(`${major}.${minor}`)) return false;
  return endpoint.validFrom === undefined || Date.parse(endpoint.validFrom) <= now.getTime();
}

/**
 * Finds the bank of a payee from the two in-memory tables as they are at each call:
 * - the BIC is the caller's, else the bank-code table's for the IBAN's country and bank code;
 * - one of our BICs → ours; no BIC, and the table routes nothing for the country (or no table is
 *   loaded) → ours, as before routing; no BIC, the country routed but not this bank code → unknown;
 * - another BIC → the responding participant of this environment holding it (a branch BIC falls
 *   back to its head office), at its endpoints valid now in a version we speak.
 */
export function payeeBankFinder(sources: {
  /** Undefined (a gateway built without settings, as specs do): every payee is ours. */
  ownBics: readonly string[] | undefined;
  directory: () => SchemeParticipantIndex | undefined;
  bankCodes: () => BankCodeIndex | undefined;
}): PayeeBankFinder {
  if (sources.ownBics === undefined)
    return { find: (_iban, bic) => ({ kind: 'ours', bic: bic && normaliseBic(bic) }) };
  const ours = new Set(sources.ownBics.map(normaliseBic));
  return {
    find(iban, callerBic, now) {
      const country = iban.slice(0, 2);
      const table = sources.bankCodes();
      let bic = callerBic === undefined ? undefined : normaliseBic(callerBic);
      if (bic === undefined) {
        if (table === undefined || !table.covers(country)) return { kind: 'ours', bic: undefined };
        const bankCode = bankCodeOf(iban);
        bic = bankCode === undefined ? undefined : table.bicOf(country, bankCode);
        if (bic === undefined)
          return { kind: 'unroutable', bic: undefined, reason: 'RESPONDER_UNKNOWN' };
      }
      if (ours.has(bic)) return { kind: 'ours', bic };
      const responder = sources.directory()?.responderHolding(bic);
      if (responder === undefined) return { kind: 'unroutable', bic, reason: 'RESPONDER_UNKNOWN' };
      const endpoints = responder.endpoints
        .filter((endpoint) => isUsable(endpoint, now))
        .map(({ uri, priority, apiVersion }) => ({ uri, priority, apiVersion }));
      if (endpoints.length === 0)
        return { kind: 'unroutable', bic, reason: 'RESPONDER_NO_ENDPOINT' };
      return { kind: 'elsewhere', bic, participant: responder.authorisationNumber, endpoints };
    },
  };
}
