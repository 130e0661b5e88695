import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { loadConfig } from '@vop/config';
import { startEmbedded, type EmbeddedService } from '@vop/embedded';
import type { DevPki } from '@vop/pki';
import type { NameMatcher } from '@vop/matching';
import { createLogger } from '@vop/observability';
import { eventually, httpsClient, type HttpsClient } from '@vop/testing';

export const BICS = { partyAgent: 'COBADEFFXXX', requestingAgent: 'DEUTDEFFXXX' };

export function schemeRequest(
  name: string | undefined,
  iban: string,
  extra: Record<string, unknown> = {},
) {
  return {
    party: { ...(name !== undefined && { name }), ...extra },
    partyAccount: { iban },
    partyAgent: { financialInstitutionId: { bicfi: BICS.partyAgent } },
    requestingAgent: { financialInstitutionId: { bicfi: BICS.requestingAgent } },
  };
}

/** The development CA and the participant certificate, as a client presents them over mutual TLS. */
export async function participantTls(
  pki: DevPki,
): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const [caPem, certPem, keyPem] = await Promise.all([
    read(pki.caPath),
    read(pki.clientCertPath),
    read(pki.clientKeyPath),
  ]);
  return { caPem, certPem, keyPem };
}

/** The development CA and the admin certificate: account records are the bank's own data (docs/architecture.md). */
export async function adminTls(
  pki: DevPki,
): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const read = (file: string): Promise<string> => readFile(file, 'utf8');
  const [caPem, certPem, keyPem] = await Promise.all([
    read(pki.caPath),
    read(pki.adminCertPath),
    read(pki.adminKeyPath),
  ]);
  return { caPem, certPem, keyPem };
}

export interface RunningEmbedded {
  service: EmbeddedService;
  /** Presents the participant certificate: what another PSP does (verifies). */
  client: HttpsClient;
  /** Presents the admin certificate: writes and reads account records, management endpoints. */
  admin: HttpsClient;
  dataDir: string;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** The embedded service on a free port, with a data folder of its own. */
export async function runEmbedded(
  options: {
    dataDir?: string;
    inMemory?: boolean;
    env?: Record<string, string>;
    /** Replaces the name matcher (e.g. one that cannot decide some names). */
    matcher?: NameMatcher;
    /** Each PGlite thread that opens (EmbeddedOptions.onPgliteThread). */
    onPgliteThread?: (thread: Worker) => void;
  } = {},
): Promise<RunningEmbedded> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'vop-embedded-')));
  const config = loadConfig({
    VOP_DATA_DIR: dataDir,
    VOP_PORT: '0',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const service = await startEmbedded({
    config,
    logger: createLogger({ service: 'test', level: process.env.VOP_TEST_LOG_LEVEL ?? 'silent' }),
    inMemory: options.inMemory ?? true,
    ...(options.matcher && { matcher: options.matcher }),
    ...(options.onPgliteThread && { onPgliteThread: options.onPgliteThread }),
  });
  const client = httpsClient({ baseUrl: service.url, ...(await participantTls(service.pki)) });
  const admin = httpsClient({ baseUrl: service.url, ...(await adminTls(service.pki)) });
  return {
    service,
    client,
    admin,
    dataDir,
    async stop(stopOptions = {}) {
      client.close();
      admin.close();
      await service.stop();
      if (!stopOptions.keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the deciders' copy of the accounts (embedded: one, the gateway's, for single checks and
 * batch entries) holds these IBANs: a check decided before would answer "no account".
 */
export async function accountsKnownToDeciders(
  running: RunningEmbedded,
  ibans: string[],
): Promise<void> {
  for (const schema of ['gateway_decisions'])
    await eventually(
      async () => {
        const { rows } = await running.service.sql.query<{ known: number }>(
          `SELECT count(DISTINCT iban)::int AS known FROM ${schema}.accounts
            WHERE iban IN (SELECT jsonb_array_elements_text($1::jsonb))`,
          [JSON.stringify(ibans)],
        );
        return rows[0]?.known === new Set(ibans).size ? true : undefined;
      },
      { what: `the accounts in ${schema}` },
    );
}
