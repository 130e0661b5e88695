import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ensureDevPki } from '@vop/pki';
import { germanIban, startServiceProcess, type ServiceProcess } from '@vop/testing';
import { clientTlsFrom } from './client-tls.js';
import { printedPort } from './printed-port.js';
import { runContext } from './run-context.js';
import { schemeRequestBody } from './scheme-request.js';

/**
 * What the HTTP stack alone costs: one JSON endpoint behind the bare node:https server, Express, and our
 * edge (`createHttpApp`), each with Node's request and response classes and with ones born with the
 * app's prototypes (packages/http/src/express-prototypes.ts); autocannon, 32 keep-alive mutual-TLS
 * connections, each server in a process of its own, the stacks alternating round by round.
 * Usage: node bench/dist/edge.bench.js [--duration 6] [--rounds 2]
 */
const benchDir = path.dirname(fileURLToPath(import.meta.url));
const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
  },
});
const duration = Number(flags.duration);
const rounds = Number(flags.rounds);
if (!(duration > 0) || !Number.isInteger(rounds) || rounds < 1)
  throw new Error('--duration must be seconds > 0, --rounds an integer >= 1');
const context = runContext();
process.stdout.write(`${context.header}\n`);

const STACKS = [
  'bare',
  'express',
  'express-born',
  'edge',
  'edge-born',
  'edge-direct-born',
] as const;
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vop-edge-bench-'));
const pki = await ensureDevPki(dataDir);
const tls = await clientTlsFrom(pki.dir);
const body = schemeRequestBody('Holder 1 Nilsson', germanIban(500_001));
const results = new Map<string, number[]>(STACKS.map((stack) => [stack, []]));

async function measure(stack: (typeof STACKS)[number]): Promise<number> {
  const certificateArgs = [pki.serverCertPath, pki.serverKeyPath, pki.caPath];
  const server: ServiceProcess =
    stack === 'bare'
      ? startServiceProcess(stack, path.join(benchDir, 'bare-server.js'), {}, certificateArgs)
      : startServiceProcess(stack, path.join(benchDir, 'edge-server.js'), {}, [
          stack,
          ...certificateArgs,
        ]);
  try {
    const port = await printedPort(server);
    const result = await autocannon({
      url: `https://127.0.0.1:${port}/vop/verify`,
      method: 'POST',
      connections: 32,
      duration,
      headers: { 'content-type': 'application/json' },
      body,
      tlsOptions: { ca: tls.caPem, cert: tls.certPem, key: tls.keyPem },
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${stack}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return Math.round(result.requests.average);
  } finally {
    await server.stop();
  }
}

try {
  for (let round = 0; round < rounds; round++)
    for (const stack of STACKS) results.get(stack)?.push(await measure(stack));
} finally {
  await rm(dataDir, { recursive: true, force: true });
}

const bare = results.get('bare') ?? [];
const lines = [
  `| stack | req/s by round | vs bare, same round |`,
  `|---|---:|---:|`,
  ...STACKS.map((stack) => {
    const figures = results.get(stack) ?? [];
    const ratios = figures.map(
      (value, round) => `${Math.round((100 * value) / (bare[round] ?? 1))} %`,
    );
    return `| ${stack} | ${figures.join(', ')} | ${ratios.join(', ')} |`;
  }),
];
process.stdout.write(
  `\nPOST /vop/verify through the HTTP stack alone, keep-alive HTTPS (TLS 1.3, mutual), ${duration} s per row\n${lines.join('\n')}\n${context.footer()}\n`,
);
