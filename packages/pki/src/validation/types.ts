/** Why a client certificate was refused; safe to log (no subject data). */
export type ClientCertificateRejection =
  | 'NO_CERTIFICATE'
  | 'UNTRUSTED'
  | 'EXPIRED'
  | 'NOT_YET_VALID'
  | 'LIFETIME_TOO_LONG'
  | 'NOT_FOR_CLIENT_AUTH'
  | 'MALFORMED';

/** The requesting PSP as its certificate identifies it. */
export interface CertifiedParticipant {
  /** organizationIdentifier (e.g. PSDDE-BAFIN-123456) when present, else the subject CN. */
  participantId: string;
  organizationIdentifier?: string;
  commonName: string;
  /** SHA-256 of the DER certificate, lowercase hex without separators. */
  fingerprint: string;
  /** PSD2 roles from the ETSI TS 119 495 qcStatement (PSP_AS, PSP_PI, PSP_AI, PSP_IC); empty without one. */
  psd2Roles: string[];
  /** Carries the ETSI QcCompliance statement (a qualified certificate). */
  qualified: boolean;
}

export type ClientCertificateVerdict =
  | { ok: true; participant: CertifiedParticipant }
  | { ok: false; reason: ClientCertificateRejection };

/** A certificate as PEM text (one or more blocks) or DER bytes, e.g. from TLSSocket.getPeerCertificate().raw. */
export type CertificateInput = string | Uint8Array;

export interface ClientCertificateCheck {
  /** The peer certificate first, then the issuers it presented, in any order. */
  chain: readonly CertificateInput[];
  now: Date;
}
