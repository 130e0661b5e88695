import type {
  EpcPartyIdentification,
  EpcVerifyResponse,
  ResponderFailureReason,
  z,
} from '@vop/contracts';

/** A responding PSP as the scheme directory lists it. */
export interface Responder {
  /** PSD2 authorisation number: the key of its breaker, budget and metrics. */
  participant: string;
  bic: string;
  /** API bases: POST `${uri}/payee-verifications`; priority 1 first. */
  endpoints: { uri: string; priority: number }[];
}

export interface PayeeCheck {
  iban: string;
  name?: string;
  identification?: z.infer<typeof EpcPartyIdentification>;
  /** The payee's bank. */
  partyAgentBic: string;
  /** Our BIC, as the requesting PSP. */
  requestingAgentBic: string;
  remittance?: string;
}

/** What the requester can say of a responder it called (or could not): the scheme's reasons but those of finding one. */
export type RequesterFailureReason = Exclude<
  ResponderFailureReason,
  'RESPONDER_UNKNOWN' | 'RESPONDER_NO_ENDPOINT'
>;

export type RoutedAnswer =
  | {
      kind: 'answered';
      participant: string;
      bic: string;
      answer: EpcVerifyResponse;
      seconds: number;
    }
  | {
      kind: 'failed';
      participant: string;
      bic: string;
      reason: RequesterFailureReason;
      /** For logs: status, error code, endpoint priority; never a name or a full IBAN. */
      detail: string;
      seconds: number;
    };

export interface AskOptions {
  /** The whole call, every endpoint tried included. */
  deadlineMs: number;
  signal?: AbortSignal;
}

export interface Requester {
  /** Never throws for a responder's misbehaviour: every failure is a `failed` answer. */
  ask(responder: Responder, check: PayeeCheck, options: AskOptions): Promise<RoutedAnswer>;
  close(): Promise<void>;
}
