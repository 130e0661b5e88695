import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** What a benchmark's client presents over mutual TLS: the CA to trust and a development certificate. */
export interface ClientTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** The development PKI's participant (`client`) or admin certificate, from a data folder's pki directory. */
export async function clientTlsFrom(
  pkiDir: string,
  holder: 'client' | 'admin' = 'client',
): Promise<ClientTls> {
  const read = (file: string): Promise<string> => readFile(path.join(pkiDir, file), 'utf8');
  const [caPem, certPem, keyPem] = await Promise.all([
    read('ca.pem'),
    read(`${holder}.pem`),
    read(`${holder}-key.pem`),
  ]);
  return { caPem, certPem, keyPem };
}
