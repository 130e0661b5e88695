import { X509Certificate } from 'node:crypto';
import { CertificateScenario, ValidateCertificatesRequest, type z } from '@vop/contracts';
import { parseBody, createRouter } from '@vop/http';
import {
  createCertificateAuthority,
  createClientCertificateValidator,
  issueCertificate,
  type ClientCertificateValidator,
  type PemPair,
} from '@vop/pki';
import { type Router } from 'express';
import type { Sandbox } from './sandbox.js';
import { noSandbox } from './test-execution-failed.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function describeCertificate(role: 'root' | 'server' | 'client', pem: string) {
  const certificate = new X509Certificate(pem);
  return {
    role,
    pem,
    subject: certificate.subject.replaceAll('\n', ', '),
    issuer: certificate.issuer.replaceAll('\n', ', '),
    serialNumber: certificate.serialNumber,
    validFrom: new Date(certificate.validFrom).toISOString(),
    validTo: new Date(certificate.validTo).toISOString(),
    fingerprint: certificate.fingerprint256,
  };
}

type Scenario = z.infer<typeof CertificateScenario>;

/** Each scenario's certificate, made now, and the verdict the edge must give it. */
async function scenarioCertificate(
  scenario: Scenario,
  ca: PemPair,
  now: Date,
): Promise<{ certPem: string; expected: string }> {
  const client = { commonName: `toolkit-${scenario}`, usage: 'client' as const };
  switch (scenario) {
    case 'valid_certificate':
      return { certPem: (await issueCertificate(ca, client)).certPem, expected: 'accepted' };
    case 'expired_certificate': {
      const notAfter = new Date(now.getTime() - DAY_MS);
      const notBefore = new Date(notAfter.getTime() - 365 * DAY_MS);
      const expired = await issueCertificate(ca, { ...client, notBefore, notAfter });
      return { certPem: expired.certPem, expected: 'refused: EXPIRED' };
    }
    case 'invalid_chain': {
      const stranger = await createCertificateAuthority({ commonName: 'Toolkit untrusted CA' });
      return {
        certPem: (await issueCertificate(stranger, client)).certPem,
        expected: 'refused: UNTRUSTED',
      };
    }
  }
}

/**
 * GET /test/certificates/chain and POST /test/certificates/validate: certificates made with
 * packages/pki, judged by the validator the edge uses, built from the edge's own trust anchors.
 */
export function certificateRoutes(options: {
  sandbox: Sandbox | undefined;
  trustAnchorsPem: string | undefined;
  clock: () => Date;
}): Router {
  const router = createRouter();
  const validate: ClientCertificateValidator | undefined =
    options.trustAnchorsPem !== undefined
      ? createClientCertificateValidator(options.trustAnchorsPem)
      : undefined;
  const verdict = async (pem: string) => {
    if (validate === undefined) throw noSandbox();
    return validate({ chain: [pem], now: options.clock() });
  };

  router.get('/test/certificates/chain', async (_req, res) => {
    if (options.sandbox === undefined) throw noSandbox();
    const [server, target] = await Promise.all([
      options.sandbox.server(),
      options.sandbox.target(),
    ]);
    res.json({
      certificates: [
        describeCertificate('root', options.sandbox.ca.certPem),
        describeCertificate('server', server.certPem),
        describeCertificate('client', target.participant.certPem),
      ],
    });
  });

  router.post('/test/certificates/validate', async (req, res) => {
    const body = parseBody(ValidateCertificatesRequest, req.body);
    const results = [];
    for (const scenario of body.scenarios ?? []) {
      if (options.sandbox === undefined) throw noSandbox();
      const made = await scenarioCertificate(scenario, options.sandbox.ca, options.clock());
      const outcome = await verdict(made.certPem);
      const actual = outcome.ok ? 'accepted' : `refused: ${outcome.reason}`;
      results.push({ scenario, expected: made.expected, actual, passed: actual === made.expected });
    }
    let submitted;
    if (body.certificatePem !== undefined) {
      const outcome = await verdict(body.certificatePem);
      submitted = outcome.ok
        ? { accepted: true, participantId: outcome.participant.participantId }
        : { accepted: false, reason: outcome.reason };
    }
    res.json({ results, ...(submitted && { submitted }) });
  });

  return router;
}
