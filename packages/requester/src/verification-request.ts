import type { EpcVerifyRequest } from '@vop/contracts';
import type { PayeeCheck } from './types.js';

/** The v1.1.1 body: typed by the contract, so the compiler holds it to the responding side's schema. */
export function verificationRequestBody(check: PayeeCheck): EpcVerifyRequest {
  return {
    party: {
      ...(check.name !== undefined && { name: check.name }),
      ...(check.identification !== undefined && { identification: check.identification }),
    },
    partyAccount: { iban: check.iban },
    partyAgent: { financialInstitutionId: { bicfi: check.partyAgentBic } },
    requestingAgent: { financialInstitutionId: { bicfi: check.requestingAgentBic } },
    ...(check.remittance !== undefined && {
      unstructuredRemittanceInformation: [check.remittance],
    }),
  };
}

/**
 * The EPC request headers. The timestamp in UTC with milliseconds, the form every v1.1.1 responder
 * accepts (ours: services/gateway/src/verifications/epc-request-headers.ts).
 */
export function verificationRequestHeaders(requestId: string, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-request-id': requestId,
    'x-request-timestamp': now.toISOString(),
  };
}
