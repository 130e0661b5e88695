import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createCertificateAuthority } from './certificate-authority.js';
import { ORGANIZATION_IDENTIFIER_OID } from './distinguished-name.js';
import { issueCertificate } from './issue-certificate.js';
import { ensurePkcs12 } from './pkcs12.js';
import type { PemPair } from './types.js';
import { x509 } from './x509.js';

export interface DevPki {
  dir: string;
  caPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  clientCertPath: string;
  clientKeyPath: string;
  adminCertPath: string;
  adminKeyPath: string;
  /**
   * PKCS#12 files of the participant and admin certificates (password DEV_PKCS12_PASSWORD) for a
   * browser; undefined when openssl is not installed.
   */
  clientP12Path: string | undefined;
  adminP12Path: string | undefined;
  /** True when this call generated the files, false when it reused existing ones. */
  created: boolean;
}

/**
 * A development PKI issued by a CA of the caller's (several deployments under one test CA, as in the
 * scheme in a box) and naming the participant it stands for.
 */
export interface DevPkiOptions {
  /** Issue from this CA instead of a new one; a set issued by another CA is set aside. */
  ca?: PemPair;
  /** The participant certificate's subject; a set naming another participant is set aside. */
  participant?: { commonName: string; organizationIdentifier: string };
}

export const DEV_CA_COMMON_NAME = 'VoP Development CA';
export const DEV_SERVER_COMMON_NAME = 'localhost';
export const DEV_PARTICIPANT_COMMON_NAME = 'vop-dev-participant';
export const DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER = 'PSDXX-DEV-000001';
export const DEV_ADMIN_COMMON_NAME = 'vop-admin';
export const DEV_ADMIN_ORGANIZATION_IDENTIFIER = 'PSDXX-DEV-ADMIN';

const FILE_NAMES = {
  caPath: 'ca.pem',
  caKeyPath: 'ca-key.pem',
  serverCertPath: 'server.pem',
  serverKeyPath: 'server-key.pem',
  clientCertPath: 'client.pem',
  clientKeyPath: 'client-key.pem',
  adminCertPath: 'admin.pem',
  adminKeyPath: 'admin-key.pem',
} as const;

type FileRole = keyof typeof FILE_NAMES;
type DevPkiContents = Record<FileRole, string>;

const CERTIFICATE_ROLES: readonly FileRole[] = [
  'caPath',
  'serverCertPath',
  'clientCertPath',
  'adminCertPath',
];
const KEY_FILE_MODE = 0o600;
const CERTIFICATE_FILE_MODE = 0o644;
/** Renewing a day early keeps a service started just before expiry from failing a few hours later. */
const MINIMUM_REMAINING_VALIDITY_MS = 24 * 60 * 60 * 1000;
const MAX_ATTEMPTS = 5;

type DirectoryState = 'absent' | 'complete' | 'unusable';

/**
 * Creates <dataDir>/pki with a development CA and server, participant and admin certificates, or reuses it.
 * The set is written to a private staging directory and renamed into place in one step, so concurrent callers
 * never see a partial set: the first rename wins and the others reuse its files.
 */
export async function ensureDevPki(dataDir: string, options: DevPkiOptions = {}): Promise<DevPki> {
  const root = path.resolve(dataDir);
  const dir = path.join(root, 'pki');
  await mkdir(root, { recursive: true });

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const state = await inspectDirectory(dir, options);
    if (state === 'complete') {
      return withPkcs12(describe(dir, false));
    }
    if (state === 'unusable') {
      await setAside(dir);
    }
    if (await publishNewSet(root, dir, options)) {
      return withPkcs12(describe(dir, true));
    }
  }
  throw new Error(`could not create or reuse the development PKI in ${dir}`);
}

async function inspectDirectory(dir: string, options: DevPkiOptions): Promise<DirectoryState> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'absent';
    throw error;
  }
  if (entries.length === 0) return 'absent';
  if (!Object.values(FILE_NAMES).every((fileName) => entries.includes(fileName))) return 'unusable';
  for (const role of CERTIFICATE_ROLES) {
    const pem = await readFile(path.join(dir, FILE_NAMES[role]), 'utf8');
    if (!isCurrentCertificate(pem)) return 'unusable';
  }
  return (await isIssuedAsAsked(dir, options)) ? 'complete' : 'unusable';
}

async function isIssuedAsAsked(dir: string, options: DevPkiOptions): Promise<boolean> {
  const read = (role: FileRole) => readFile(path.join(dir, FILE_NAMES[role]), 'utf8');
  if (options.ca !== undefined) {
    const held = new x509.X509Certificate(await read('caPath'));
    const asked = new x509.X509Certificate(options.ca.certPem);
    if (!held.equal(asked)) return false;
  }
  if (options.participant !== undefined) {
    const participant = new x509.X509Certificate(await read('clientCertPath'));
    const wanted = options.participant.organizationIdentifier;
    if (participant.subjectName.getField(ORGANIZATION_IDENTIFIER_OID)[0] !== wanted) return false;
  }
  return true;
}

function isCurrentCertificate(pem: string): boolean {
  try {
    const certificate = new x509.X509Certificate(pem);
    return certificate.notAfter.getTime() - Date.now() > MINIMUM_REMAINING_VALIDITY_MS;
  } catch {
    return false;
  }
}

/** Moves an incomplete or expired set out of the way instead of deleting it, so nothing is lost silently. */
async function setAside(dir: string): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  try {
    await rename(dir, `${dir}.replaced-${stamp}-${randomBytes(3).toString('hex')}`);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

/** Returns false when another caller published its set first. */
async function publishNewSet(root: string, dir: string, options: DevPkiOptions): Promise<boolean> {
  const staging = await mkdtemp(path.join(root, '.pki-staging-'));
  try {
    const contents = await generateContents(options);
    for (const role of Object.keys(FILE_NAMES) as FileRole[]) {
      const mode = role.toLowerCase().includes('key') ? KEY_FILE_MODE : CERTIFICATE_FILE_MODE;
      await writeDurably(path.join(staging, FILE_NAMES[role]), contents[role], mode);
    }
    try {
      await rename(staging, dir);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
      throw error;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function generateContents(options: DevPkiOptions): Promise<DevPkiContents> {
  const ca = options.ca ?? (await createCertificateAuthority({ commonName: DEV_CA_COMMON_NAME }));
  const [server, participant, admin] = await Promise.all([
    issueCertificate(ca, {
      commonName: DEV_SERVER_COMMON_NAME,
      usage: 'server',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
    }),
    issueCertificate(ca, {
      commonName: options.participant?.commonName ?? DEV_PARTICIPANT_COMMON_NAME,
      usage: 'client',
      organizationIdentifier:
        options.participant?.organizationIdentifier ?? DEV_PARTICIPANT_ORGANIZATION_IDENTIFIER,
    }),
    issueCertificate(ca, {
      commonName: DEV_ADMIN_COMMON_NAME,
      usage: 'client',
      organizationIdentifier: DEV_ADMIN_ORGANIZATION_IDENTIFIER,
    }),
  ]);
  return {
    caPath: ca.certPem,
    caKeyPath: ca.keyPem,
    serverCertPath: server.certPem,
    serverKeyPath: server.keyPem,
    clientCertPath: participant.certPem,
    clientKeyPath: participant.keyPem,
    adminCertPath: admin.certPem,
    adminKeyPath: admin.keyPem,
  };
}

async function writeDurably(filePath: string, contents: string, mode: number): Promise<void> {
  const handle = await open(filePath, 'wx', mode);
  try {
    await handle.writeFile(contents, 'utf8');
    // The mode given to open() is filtered by the umask; keys must be 0600 whatever the umask is.
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function withPkcs12(pki: Omit<DevPki, 'clientP12Path' | 'adminP12Path'>): Promise<DevPki> {
  const common = { dir: pki.dir, caPath: pki.caPath };
  const [clientP12Path, adminP12Path] = await Promise.all([
    ensurePkcs12({
      ...common,
      name: 'client',
      certPath: pki.clientCertPath,
      keyPath: pki.clientKeyPath,
      friendlyName: DEV_PARTICIPANT_COMMON_NAME,
    }),
    ensurePkcs12({
      ...common,
      name: 'admin',
      certPath: pki.adminCertPath,
      keyPath: pki.adminKeyPath,
      friendlyName: DEV_ADMIN_COMMON_NAME,
    }),
  ]);
  return { ...pki, clientP12Path, adminP12Path };
}

function describe(dir: string, created: boolean): Omit<DevPki, 'clientP12Path' | 'adminP12Path'> {
  const at = (role: FileRole): string => path.join(dir, FILE_NAMES[role]);
  return {
    dir,
    caPath: at('caPath'),
    serverCertPath: at('serverCertPath'),
    serverKeyPath: at('serverKeyPath'),
    clientCertPath: at('clientCertPath'),
    clientKeyPath: at('clientKeyPath'),
    adminCertPath: at('adminCertPath'),
    adminKeyPath: at('adminKeyPath'),
    created,
  };
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string'
    ? error.code
    : undefined;
}
