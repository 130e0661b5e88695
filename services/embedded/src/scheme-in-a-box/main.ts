// `pnpm start:scheme`: three banks on this machine until Ctrl-C (docs/operations.md).
import { performance } from 'node:perf_hooks';
import { SCHEME_BANKS } from './banks.js';
import {
  DEFAULT_SCHEME_DIR,
  DEFAULT_SCHEME_PORTS,
  startScheme,
  type RunningScheme,
} from './scheme.js';

function schemePorts(value: string | undefined): readonly number[] {
  if (value === undefined || value.trim() === '') return DEFAULT_SCHEME_PORTS;
  const ports = value.split(',').map((item) => Number(item.trim()));
  if (
    ports.length !== SCHEME_BANKS.length ||
    !ports.every((port) => Number.isInteger(port) && port >= 0 && port <= 65535)
  )
    throw new Error(
      `VOP_SCHEME_PORTS must be ${SCHEME_BANKS.length} ports, comma separated (0: a free one), e.g. 9441,9442,9443`,
    );
  return ports;
}

const startedAt = performance.now();
let scheme: RunningScheme | undefined;
let stopping = false;

async function stopAndExit(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await scheme?.stop();
  process.exit(code);
}

const starting = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    process.stdout.write(`\n${signal}: stopping the banks\n`);
    if (scheme === undefined) starting.abort(new Error(`${signal} while the banks started`));
    else void stopAndExit(0);
  });

try {
  const rootDir = process.env.VOP_SCHEME_DIR ?? DEFAULT_SCHEME_DIR;
  const ports = schemePorts(process.env.VOP_SCHEME_PORTS);
  process.stdout.write(`Starting ${SCHEME_BANKS.length} banks under ${rootDir} …\n`);
  scheme = await startScheme({ rootDir, ports, signal: starting.signal });
} catch (error) {
  process.stderr.write(`The scheme did not start: ${(error as Error).message}\n`);
  process.exit(1);
}
const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
process.stdout.write(`${scheme.banner}\nReady in ${seconds} s. Ctrl-C stops the three banks.\n`);
void scheme.bankEnded.then((what) => {
  process.stderr.write(`${what}: the other banks are stopped\n`);
  process.exit(1);
});
