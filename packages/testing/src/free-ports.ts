import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/*
 * Ports for servers a test starts in another process. A port the OS picks for listen(0) comes from the
 * ephemeral range, the same range every outgoing connection (to Kafka, PostgreSQL, a gateway) takes its
 * local port from: once the probe closes, any client socket on the machine may take it before the child
 * binds it (a CI run failed so: a batch service's `EADDRINUSE`). Below that range the OS hands out no
 * port by itself, so only another test can take one; a claim file per port keeps test processes running
 * side by side from picking the same one.
 */

const LOWEST = 20_000;
/** Linux's default ephemeral range starts at 32768; where it cannot be read, stay below that. */
const DEFAULT_EPHEMERAL_START = 32_768;
/** A claim this old is released: a test binds its port within seconds, and a whole run takes minutes. */
const CLAIM_LIFETIME_MS = 60 * 60 * 1000;
const CLAIMS_DIR = path.join(os.tmpdir(), 'vop-test-ports');

async function ephemeralStart(): Promise<number> {
  try {
    const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'))
      .trim()
      .split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

/** Read and made once a process: where the ports end, and the claims' folder. */
let below: Promise<number> | undefined;
const portsBelow = (): Promise<number> =>
  (below ??= mkdir(CLAIMS_DIR, { recursive: true }).then(ephemeralStart));

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Claims a port for this process; false when another test process holds a live claim on it. */
async function claim(port: number): Promise<boolean> {
  const file = path.join(CLAIMS_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await (await open(file, 'wx')).close();
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      const { mtimeMs } = await stat(file).catch(() => ({ mtimeMs: 0 }));
      if (Date.now() - mtimeMs < CLAIM_LIFETIME_MS) return false;
      await unlink(file).catch(() => undefined);
    }
  }
  return false;
}

/**
 * The first of `count` consecutive ports on 127.0.0.1, each free and claimed for this process, below the
 * ephemeral range (for scripts that number their listeners from a base, infra/local/distributed.sh).
 */
export async function freePortRange(count: number): Promise<number> {
  const end = await portsBelow();
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const base = LOWEST + Math.floor(Math.random() * (end - LOWEST - count));
    let taken = true;
    for (let port = base; port < base + count && taken; port++)
      taken = (await claim(port)) && (await bindable(port));
    if (taken) return base;
  }
  throw new Error(`no ${count} free consecutive ports between ${LOWEST} and ${end} on 127.0.0.1`);
}

/** A free port on 127.0.0.1, claimed for this process, that no outgoing connection can take meanwhile. */
export async function freePort(): Promise<number> {
  return freePortRange(1);
}
