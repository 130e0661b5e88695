import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { pacedLoad } from './paced-load.js';
import { processCpuMs } from './process-cpu.js';
import { runContext } from './run-context.js';
import { SEEDED_ACCOUNTS, startSeededEmbedded } from './seeded-embedded.js';

/**
 * CPU per verification of the embedded service: starts services/embedded/dist/main.js of --root (default
 * this checkout, so two builds can alternate) on --data (seeded with 1,000 accounts on first use), warms
 * up 2 s, loads POST /vop/verify for --duration s at 32 keep-alive connections (or --rate req/s), and
 * reads the process's CPU time from /proc. --cpu-prof DIR writes its V8 profile there. --paced (with --rate)
 * sends the rate evenly (paced-load.ts): autocannon's rate sends each second's quota in a burst at its start,
 * so its checks arrive in groups that share a recording round, where evenly paced ones mostly arrive alone.
 */
const { values: flags } = parseArgs({
  options: {
    root: { type: 'string' },
    data: { type: 'string' },
    duration: { type: 'string', default: '8' },
    rate: { type: 'string' },
    paced: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const root = flags.root ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
if (flags.data === undefined) throw new Error('--data <folder> is required');
const dataDir = path.resolve(flags.data);
const duration = Number(flags.duration);
const rate = flags.rate === undefined ? undefined : Number(flags.rate);
if (flags.paced && rate === undefined) throw new Error('--paced needs --rate');
const context = runContext();
process.stdout.write(`${context.header}\n`);

const { service, url, tls, body } = await startSeededEmbedded({
  root,
  dataDir,
  nodeArgs:
    flags['cpu-prof'] === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(flags['cpu-prof'])}`],
});

let counter = 0;
const load = (seconds: number) =>
  autocannon({
    url: `${url}/vop/verify`,
    method: 'POST',
    connections: 32,
    duration: seconds,
    ...(rate !== undefined && { overallRate: rate }),
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: body(counter++) }) }],
    tlsOptions: { ca: tls.caPem, cert: tls.certPem, key: tls.keyPem },
  });
const cpuMs = (): number => processCpuMs(service.child.pid ?? 0);
await load(2);
const [cpuBefore, startedAt] = [cpuMs(), Date.now()];
const result = flags.paced
  ? await pacedLoad({
      url: `${url}/vop/verify`,
      rate: rate ?? 0,
      seconds: duration,
      tls,
      bodies: Array.from({ length: SEEDED_ACCOUNTS }, (_, index) => body(index)),
      warmUpSeconds: 1,
    }).then((paced) => ({
      // The window's CPU covers the paced client's second of warm-up too: every request it sent counts.
      requests: paced.sentInAll,
      perSecond: paced.answeredPerSecond,
      p50: paced.p50,
      p99: paced.p99,
      non2xx: paced.errors,
    }))
  : await load(duration).then((loaded) => ({
      requests: loaded.requests.total,
      perSecond: loaded.requests.average,
      p50: loaded.latency.p50,
      p99: loaded.latency.p99,
      non2xx: loaded.non2xx,
    }));
const [cpuAfter, endedAt] = [cpuMs(), Date.now()];
await service.stop();
const cpuPerVerification = (cpuAfter - cpuBefore) / result.requests;
process.stdout.write(
  `| req/s | p50 ms | p99 ms | non-2xx | CPU ms per verification | share of a core |\n` +
    `|---:|---:|---:|---:|---:|---:|\n` +
    `| ${Math.round(result.perSecond)} | ${result.p50} | ${result.p99} | ` +
    `${result.non2xx} | ${cpuPerVerification.toFixed(2)} | ` +
    `${((cpuAfter - cpuBefore) / (endedAt - startedAt)).toFixed(2)} |\n${context.footer()}\n`,
);
