import type { RequestListener } from 'node:http';
import type { SchemeSuiteTarget } from '@vop/conformance';
import { startHttpsServer, type RunningServer } from '@vop/http';
import { DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER, issueCertificate, type PemPair } from '@vop/pki';

/**
 * The toolkit's sandbox: a CA the edge trusts (the development CA in the development profile), the
 * certificates it issues for the toolkit's own requests, and a loopback listener of this very app,
 * so a run goes through the same edge, certificate check and verification path as a bank's request.
 */
export interface SandboxOptions {
  ca: PemPair;
  /** The PSD2 authorisation number of the suite's participant; it must be in the scheme directory. */
  participantOrganizationIdentifier?: string;
}

/** Holds no directory entry anywhere: the suite's trusted stranger. */
const NON_PARTICIPANT_ORGANIZATION_IDENTIFIER = 'PSDXX-TOOLKIT-STRANGER';

export interface Sandbox {
  readonly ca: PemPair;
  /** The loopback target (started on first use) with the participant and stranger certificates. */
  target(): Promise<SchemeSuiteTarget>;
  server(): Promise<{ url: string; certPem: string }>;
  stop(): Promise<void>;
}

export function createSandbox(options: SandboxOptions, handler: () => RequestListener): Sandbox {
  let started:
    Promise<{ loopback: RunningServer; certPem: string; target: SchemeSuiteTarget }> | undefined;
  const start = async () => {
    const [serverCertificate, participant, nonParticipant] = await Promise.all([
      issueCertificate(options.ca, {
        commonName: 'vop-toolkit-loopback',
        usage: 'server',
        ipAddresses: ['127.0.0.1'],
      }),
      issueCertificate(options.ca, {
        commonName: 'vop-toolkit-participant',
        usage: 'client',
        organizationIdentifier:
          options.participantOrganizationIdentifier ?? DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
      }),
      issueCertificate(options.ca, {
        commonName: 'vop-toolkit-stranger',
        usage: 'client',
        organizationIdentifier: NON_PARTICIPANT_ORGANIZATION_IDENTIFIER,
      }),
    ]);
    const loopback = await startHttpsServer({
      handler: handler(),
      host: '127.0.0.1',
      port: 0,
      certPem: serverCertificate.certPem,
      keyPem: serverCertificate.keyPem,
      caPem: options.ca.certPem,
    });
    return {
      loopback,
      certPem: serverCertificate.certPem,
      target: { baseUrl: loopback.url, caPem: options.ca.certPem, participant, nonParticipant },
    };
  };
  const ready = () => {
    started ??= start().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  return {
    ca: options.ca,
    target: async () => (await ready()).target,
    server: async () => {
      const { loopback, certPem } = await ready();
      return { url: loopback.url, certPem };
    },
    async stop() {
      const running = started;
      started = undefined;
      if (running) await (await running.catch(() => undefined))?.loopback.close();
    },
  };
}
