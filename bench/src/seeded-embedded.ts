import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  eventually,
  freePort,
  germanIban,
  httpsClient,
  type ServiceProcess,
  startServiceProcess,
} from '@vop/testing';
import { type ClientTls, clientTlsFrom } from './client-tls.js';
import { schemeRequestBody } from './scheme-request.js';

/** Accounts a seeded data folder holds: each check names one of them. */
export const SEEDED_ACCOUNTS = 1000;

export interface SeededEmbedded {
  service: ServiceProcess;
  url: string;
  tls: ClientTls;
  /** A `POST /vop/verify` body naming seeded account `index` (mod SEEDED_ACCOUNTS) by its holder's name. */
  body(index: number): string;
}

/**
 * The embedded service of `root` (a checkout, so two builds can alternate) on `dataDir`, ready, its
 * participant's verification budget lifted, with SEEDED_ACCOUNTS accounts on first use of the folder.
 */
export async function startSeededEmbedded(options: {
  root: string;
  dataDir: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<SeededEmbedded> {
  const { dataDir } = options;
  const port = await freePort();
  const service = startServiceProcess(
    'embedded',
    path.join(options.root, 'services/embedded/dist/main.js'),
    {
      VOP_DATA_DIR: dataDir,
      VOP_PORT: String(port),
      LOG_LEVEL: 'warn',
      VOP_RATE_LIMIT_TEST_PER_HOUR: '1000000',
      // The load is one participant's: lift its verification budget (6,000 a minute by default).
      VOP_TEST_RATE_LIMITS: '{"default":100000000}',
      ...options.env,
    },
    [],
    options.nodeArgs ?? [],
  );
  const url = `https://127.0.0.1:${port}`;
  const pkiDir = path.join(dataDir, 'pki');
  const tls = await eventually(async () => clientTlsFrom(pkiDir).catch(() => undefined), {
    timeoutMs: 60_000,
  });
  const client = httpsClient({ baseUrl: url, ...tls });
  await eventually(
    async () =>
      (await client.get('/readyz').catch(() => undefined))?.status === 200 ? true : undefined,
    { timeoutMs: 60_000, intervalMs: 200, what: 'readiness' },
  );
  const body = (index: number): string => {
    const account = index % SEEDED_ACCOUNTS;
    return schemeRequestBody(`Holder ${account} Nilsson`, germanIban(500_000 + account));
  };
  const seededMark = path.join(dataDir, 'seeded');
  if (!existsSync(seededMark)) {
    const admin = httpsClient({ baseUrl: url, ...(await clientTlsFrom(pkiDir, 'admin')) });
    for (let index = 0; index < SEEDED_ACCOUNTS; index++) {
      const response = await admin.post('/accounts', {
        iban: germanIban(500_000 + index),
        name: `Holder ${index} Nilsson`,
      });
      if (response.status !== 201 && response.status !== 409)
        throw new Error(`seeding failed: ${response.status}`);
    }
    await eventually(
      async () => {
        const response = await client.request('POST', '/vop/verify', {
          rawBody: body(SEEDED_ACCOUNTS - 1),
          headers: { 'content-type': 'application/json' },
        });
        return (response.body as { partyNameMatch?: string }).partyNameMatch === 'MTCH'
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, what: 'seeded accounts' },
    );
    writeFileSync(seededMark, 'seeded\n');
    admin.close();
  }
  client.close();
  return { service, url, tls, body };
}
