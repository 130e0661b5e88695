import { createHash } from 'node:crypto';
import { ORGANIZATION_IDENTIFIER_OID } from '../distinguished-name.js';
import { x509 } from '../x509.js';
import { parseQcStatements, QC_STATEMENTS_OID } from './qc-statements.js';
import type {
  CertificateInput,
  CertifiedParticipant,
  ClientCertificateCheck,
  ClientCertificateRejection,
  ClientCertificateVerdict,
} from './types.js';
import { cachingVerdicts, type CheckedChain } from './verdict-cache.js';

const MILLISECONDS_PER_DAY = 24 * 60 * 60 * 1000;
/** Two years (730 days) plus a day's leeway for issuers that round the end of the validity period up. */
export const MAX_CLIENT_CERTIFICATE_LIFETIME_MS = 731 * MILLISECONDS_PER_DAY;
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

export type ClientCertificateValidator = (
  check: ClientCertificateCheck,
) => Promise<ClientCertificateVerdict>;

export interface ClientCertificateValidatorOptions {
  /**
   * Remember this many accepted chains (by their fingerprints) and their verdict, each only while every
   * certificate of its path is within its validity period; 0 (the default) remembers none.
   */
  cachedVerdicts?: number;
}

/**
 * Parses the trust bundle once; the returned function checks one presented chain against it. The cache
 * belongs to that trust bundle: another bundle means another validator, with an empty cache.
 */
export function createClientCertificateValidator(
  trustAnchorsPem: string,
  options: ClientCertificateValidatorOptions = {},
): ClientCertificateValidator {
  const anchors = x509.PemConverter.decode(trustAnchorsPem).map(
    (der) => new x509.X509Certificate(der),
  );
  if (anchors.length === 0) throw new Error('the trust anchor bundle holds no certificate');
  const anchorFingerprints = new Set(anchors.map((anchor) => sha256Hex(anchor.rawData)));
  const check = (input: ClientCertificateCheck) => validate(input, anchors, anchorFingerprints);
  const cachedVerdicts = options.cachedVerdicts ?? 0;
  if (cachedVerdicts === 0) return async (input) => (await check(input)).verdict;
  return cachingVerdicts(check, cachedVerdicts);
}

export async function validateClientCertificate(
  input: ClientCertificateCheck & { trustAnchorsPem: string },
): Promise<ClientCertificateVerdict> {
  return createClientCertificateValidator(input.trustAnchorsPem)(input);
}

async function validate(
  check: ClientCertificateCheck,
  anchors: x509.X509Certificate[],
  anchorFingerprints: Set<string>,
): Promise<CheckedChain> {
  const refuse = (reason: ClientCertificateRejection): CheckedChain => ({
    verdict: { ok: false, reason },
  });
  if (check.chain.length === 0) return refuse('NO_CERTIFICATE');
  let presented: x509.X509Certificate[];
  try {
    presented = check.chain.flatMap(toCertificates);
  } catch {
    return refuse('MALFORMED');
  }
  const [leaf, ...issuers] = presented;
  if (leaf === undefined) return refuse('MALFORMED');

  const path = await pathToAnchor(leaf, [...issuers, ...anchors], anchorFingerprints);
  if (path === null) return refuse('UNTRUSTED');

  for (const certificate of path) {
    if (check.now.getTime() < certificate.notBefore.getTime()) return refuse('NOT_YET_VALID');
    if (check.now.getTime() > certificate.notAfter.getTime()) return refuse('EXPIRED');
  }
  if (leaf.notAfter.getTime() - leaf.notBefore.getTime() > MAX_CLIENT_CERTIFICATE_LIFETIME_MS) {
    return refuse('LIFETIME_TOO_LONG');
  }
  if (!isForClientAuthentication(leaf)) return refuse('NOT_FOR_CLIENT_AUTH');
  return {
    verdict: { ok: true, participant: participantOf(leaf) },
    validity: {
      from: Math.max(...path.map((certificate) => certificate.notBefore.getTime())),
      until: Math.min(...path.map((certificate) => certificate.notAfter.getTime())),
    },
  };
}

function toCertificates(input: CertificateInput): x509.X509Certificate[] {
  if (typeof input === 'string') {
    const blocks = x509.PemConverter.decode(input);
    if (blocks.length === 0) throw new Error('no PEM certificate block');
    return blocks.map((der) => new x509.X509Certificate(der));
  }
  return [new x509.X509Certificate(input)];
}

/**
 * The leaf and its issuers up to the first trust anchor, every signature verified by the chain builder. Null when
 * the chain ends anywhere else, or when an issuer on the way is not a CA.
 */
async function pathToAnchor(
  leaf: x509.X509Certificate,
  candidates: x509.X509Certificate[],
  anchorFingerprints: Set<string>,
): Promise<x509.X509Certificate[] | null> {
  let chain: x509.X509Certificate[];
  try {
    chain = [...(await new x509.X509ChainBuilder({ certificates: candidates }).build(leaf))];
  } catch {
    return null;
  }
  // The leaf itself being an anchor does not make it a client certificate: it still needs an issuer to vouch for it.
  const anchorIndex = chain.findIndex(
    (certificate, index) => index > 0 && anchorFingerprints.has(sha256Hex(certificate.rawData)),
  );
  if (anchorIndex === -1) return null;
  const path = chain.slice(0, anchorIndex + 1);
  const issuersAreAuthorities = path
    .slice(1)
    .every((issuer) => issuer.getExtension(x509.BasicConstraintsExtension)?.ca === true);
  return issuersAreAuthorities ? path : null;
}

function isForClientAuthentication(leaf: x509.X509Certificate): boolean {
  if (leaf.getExtension(x509.BasicConstraintsExtension)?.ca === true) return false;
  const keyUsage = leaf.getExtension(x509.KeyUsagesExtension);
  if (keyUsage && (keyUsage.usages & x509.KeyUsageFlags.digitalSignature) === 0) return false;
  const extendedKeyUsage = leaf.getExtension(x509.ExtendedKeyUsageExtension);
  return !extendedKeyUsage || extendedKeyUsage.usages.map(String).includes(CLIENT_AUTH_OID);
}

function participantOf(leaf: x509.X509Certificate): CertifiedParticipant {
  const organizationIdentifier = leaf.subjectName.getField(ORGANIZATION_IDENTIFIER_OID)[0];
  const commonName = leaf.subjectName.getField('CN')[0] ?? '';
  const fingerprint = sha256Hex(leaf.rawData);
  const qcStatements = leaf.getExtension(QC_STATEMENTS_OID);
  const { qualified, psd2Roles } = qcStatements
    ? parseQcStatements(qcStatements.value)
    : { qualified: false, psd2Roles: [] };
  return {
    participantId: organizationIdentifier ?? (commonName || `sha256:${fingerprint}`),
    ...(organizationIdentifier !== undefined && { organizationIdentifier }),
    commonName,
    fingerprint,
    psd2Roles,
    qualified,
  };
}

export function sha256Hex(der: ArrayBuffer | Uint8Array): string {
  return createHash('sha256')
    .update(der instanceof Uint8Array ? der : new Uint8Array(der))
    .digest('hex');
}
