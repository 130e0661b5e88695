import type { VerificationRequestedData, RoutedTo } from '@vop/contracts';
import type { Requester } from '@vop/requester';
import type { PayeeBankAnswer } from '@vop/verifications';
import type { PayeeBank, PayeeBankFinder } from '../scheme-directory/payee-bank.js';

/** A payee's bank that is not ours: found in the directory, or not found at all. */
export type OtherBank = Exclude<PayeeBank, { kind: 'ours' }>;

/**
 * The requesting side of a check (design §9): where the payee's bank is, and what it answered. A
 * payee's bank that cannot be found, or a deployment with no requester certificate, fails without a
 * call; only endpoints of the loaded directory are ever called (the finder gives them).
 */
export interface PayeeBanks {
  /** `undefined`: the payee's bank is ours, decide here. */
  otherBankOf(request: VerificationRequestedData, now: Date): OtherBank | undefined;
  ask(
    request: VerificationRequestedData,
    bank: OtherBank,
    deadlineMs: number,
  ): Promise<PayeeBankAnswer>;
}

export function routedToOf(bank: OtherBank): RoutedTo | undefined {
  if (bank.bic === undefined) return undefined;
  return bank.kind === 'elsewhere'
    ? { bic: bank.bic, participant: bank.participant }
    : { bic: bank.bic };
}

export function payeeBanks(options: {
  finder: PayeeBankFinder;
  /** Undefined: no requester certificate is configured; every routed check fails unavailable. */
  requester: Requester | undefined;
  /** Our BIC as the requesting PSP (requestingAgent). */
  requestingAgentBic: string;
}): PayeeBanks {
  const { finder, requester, requestingAgentBic } = options;
  return {
    otherBankOf(request, now) {
      const bank = finder.find(request.iban, request.partyAgentBic, now);
      return bank.kind === 'ours' ? undefined : bank;
    },
    async ask(request, bank, deadlineMs) {
      if (bank.kind === 'unroutable')
        return {
          kind: 'failed',
          reason: bank.reason,
          ...(bank.bic !== undefined && { bic: bank.bic }),
        };
      if (requester === undefined)
        return {
          kind: 'failed',
          bic: bank.bic,
          participant: bank.participant,
          reason: 'RESPONDER_UNAVAILABLE',
        };
      // The requester's answer is a PayeeBankAnswer already (its timing and detail are for its metrics and log).
      return requester.ask(
        { participant: bank.participant, bic: bank.bic, endpoints: bank.endpoints },
        {
          iban: request.iban,
          ...(request.name !== undefined && { name: request.name }),
          ...(request.identification?.lei !== undefined && {
            identification: { lei: request.identification.lei },
          }),
          partyAgentBic: bank.bic,
          requestingAgentBic,
        },
        { deadlineMs },
      );
    },
  };
}
