import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { RequestHandler, Response } from 'express';
import type { Logger } from '@vop/observability';
import {
  createClientCertificateValidator,
  type CertifiedParticipant,
  type ClientCertificateRejection,
  type ClientCertificateVerdict,
} from '@vop/pki';
import { ApiError, principalOf, requestFamily, setPrincipal } from '@vop/http';

/** Which certificate carries admin rights: by SHA-256 fingerprint, or by subject attributes (all given must match). */
export interface AdminCertificateIdentity {
  fingerprints?: string[];
  subject?: { organizationIdentifier?: string; commonName?: string };
}

export interface ClientCertificateAuthOptions {
  /** PEM bundle of the CAs whose client certificates are accepted (standing in for the EU Trusted Lists). */
  trustAnchorsPem: string;
  admin: AdminCertificateIdentity;
  /** When true, every request through this middleware without a valid certificate is answered 401. */
  required: boolean;
  logger: Logger;
  now?: () => Date;
}

const REJECTION_KEY = 'clientCertificateRejection';

/** Accepted chains remembered by the gateway: far more than the participants of a scheme. */
const CACHED_VERDICTS = 1000;

const unauthorized = (reason: ClientCertificateRejection | undefined): ApiError =>
  new ApiError(401, 'UNAUTHORIZED', 'A valid client certificate is required', {
    reason: reason ?? 'NO_CERTIFICATE',
  });

function normaliseFingerprint(fingerprint: string): string {
  return fingerprint.replaceAll(':', '').toLowerCase();
}

function isTlsSocket(socket: Socket): socket is TLSSocket {
  return typeof (socket as Partial<TLSSocket>).getPeerCertificate === 'function';
}

/** The peer certificate and the issuers the TLS stack knows for it, as DER, leaf first. */
function presentedChain(socket: Socket): Uint8Array[] {
  if (!isTlsSocket(socket)) return [];
  const chain: Uint8Array[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  let current: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  // A self-signed root is its own issuerCertificate, so stop at the first repeat.
  while (current?.raw !== undefined && !seen.has(current)) {
    seen.add(current);
    chain.push(current.raw);
    current = current.issuerCertificate;
  }
  return chain;
}

function isAdmin(participant: CertifiedParticipant, admin: AdminCertificateIdentity): boolean {
  if (
    admin.fingerprints?.some(
      (fingerprint) => normaliseFingerprint(fingerprint) === participant.fingerprint,
    )
  )
    return true;
  const subject = admin.subject;
  if (
    subject === undefined ||
    (subject.organizationIdentifier === undefined && subject.commonName === undefined)
  )
    return false;
  return (
    (subject.organizationIdentifier === undefined ||
      subject.organizationIdentifier === participant.organizationIdentifier) &&
    (subject.commonName === undefined || subject.commonName === participant.commonName)
  );
}

/**
 * Validates the client certificate of the TLS connection once per socket (keep-alive requests reuse the verdict,
 * and a new connection with a chain accepted before reuses its verdict while the chain is within its validity)
 * and sets the certificate Principal when it is valid. Refusals are logged with their reason only.
 */
export function clientCertificateAuth(options: ClientCertificateAuthOptions): RequestHandler {
  // A new connection with a known certificate skips the parsing and signature checks (about 12 % of the
  // distributed gateway's CPU when clients reconnected often); an expired one is checked again, and refused.
  const validate = createClientCertificateValidator(options.trustAnchorsPem, {
    cachedVerdicts: CACHED_VERDICTS,
  });
  const now = options.now ?? (() => new Date());
  const verdicts = new WeakMap<Socket, Promise<ClientCertificateVerdict>>();

  function verdictFor(socket: Socket): Promise<ClientCertificateVerdict> {
    let verdict = verdicts.get(socket);
    if (verdict === undefined) {
      verdict = validate({ chain: presentedChain(socket), now: now() }).then((result) => {
        if (!result.ok)
          options.logger.warn({ reason: result.reason }, 'client certificate refused');
        return result;
      });
      verdicts.set(socket, verdict);
    }
    return verdict;
  }

  return (req, res, next) => {
    verdictFor(req.socket).then((verdict) => {
      if (verdict.ok) {
        setPrincipal(res, {
          kind: 'certificate',
          participantId: verdict.participant.participantId,
          ...(verdict.participant.organizationIdentifier !== undefined && {
            organizationIdentifier: verdict.participant.organizationIdentifier,
          }),
          fingerprint: verdict.participant.fingerprint,
          admin: isAdmin(verdict.participant, options.admin),
        });
        return next();
      }
      res.locals[REJECTION_KEY] = verdict.reason;
      next(options.required ? unauthorized(verdict.reason) : undefined);
    }, next);
  };
}

function rejectionOf(res: Response): ClientCertificateRejection | undefined {
  return res.locals[REJECTION_KEY] as ClientCertificateRejection | undefined;
}

/** 401 unless the request came with a valid client certificate (after clientCertificateAuth). */
export const requireCertificate: RequestHandler = (_req, res, next) => {
  next(principalOf(res)?.kind === 'certificate' ? undefined : unauthorized(rejectionOf(res)));
};

/** Families whose access is `participant-certificate` (the scheme family) refuse a request without one, with the reason. */
export const requireCertificateByFamily: RequestHandler = (req, res, next) => {
  if (requestFamily(req, res).access !== 'participant-certificate') return next();
  requireCertificate(req, res, next);
};
