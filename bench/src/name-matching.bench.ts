// Name-matching throughput on one core, and the heap taken by the loaded reference tables.
// Build: pnpm run build (the bench package compiles every file under bench/src)
// Run:   node --expose-gc bench/dist/name-matching.bench.js   (without --expose-gc the heap figure is rougher)
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AccountHolder, NameMatcher } from '@vop/name-matching';
import { runContext } from './run-context.js';

const GIVEN = [
  'Hans',
  'Jürgen',
  'Ursula',
  'François',
  'Hélène',
  'Giuseppe',
  'Giulia',
  'José',
  'Lucía',
  'Pieter',
  'Anouk',
  'Krzysztof',
  'Małgorzata',
  'Jiří',
  'Kateřina',
  'Lars',
  'Åsa',
  'Søren',
  'Mette',
  'Juha',
  'Päivi',
  'João',
  'Inês',
  'László',
  'Erzsébet',
  'Ștefan',
  'Ioana',
  'Ivan',
  'Željka',
  'William',
  'Elizabeth',
  'Maximilian',
  'Anna',
  'Thomas',
];
const SURNAMES = [
  'Müller',
  'Schäfer',
  'Lefèvre',
  'Dubois',
  'Rossi',
  'Esposito',
  'García',
  'Fernández',
  'de Vries',
  'van den Berg',
  'Kowalski',
  'Wiśniewska',
  'Novák',
  'Dvořáková',
  'Andersson',
  'Sjöberg',
  'Jensen',
  'Østergaard',
  'Korhonen',
  'Mäkinen',
  'Silva',
  'Gonçalves',
  'Nagy',
  'Kovács',
  'Popescu',
  'Țurcanu',
  'Horvat',
  'Babić',
  'Smith',
  "O'Connor",
  'Zimmermann',
  'Schneider',
  'Hoffmann',
  'Bianchi',
];
const ORG_WORDS = [
  'Bau',
  'Logistik',
  'Transporte',
  'Immobilien',
  'Consulting',
  'Bäckerei',
  'Atelier',
  'Vastgoed',
  'Energia',
  'Solutions',
  'Trading',
  'Holding',
  'Software',
  'Agro',
  'Nordlicht',
  'Alpenblick',
  'Rheinwerk',
  'Delta',
];
const FORMS = [
  'GmbH',
  'AG',
  'SARL',
  'S.A.',
  'S.r.l.',
  'S.L.',
  'B.V.',
  'sp. z o.o.',
  's.r.o.',
  'AB',
  'A/S',
  'Oy',
  'Lda.',
  'Kft.',
  'S.R.L.',
  'd.o.o.',
  'Ltd',
  'GmbH & Co. KG',
];

let seed = 42;
const random = (): number => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

/** Name-length mix: persons 2 words 60 %, 3 words 30 %, 4 words 10 %; organisations 2-3 words + legal form. */
function holderName(isOrganisation: boolean): string {
  if (isOrganisation)
    return `${pick(SURNAMES)} ${pick(ORG_WORDS)}${random() < 0.4 ? ` ${pick(ORG_WORDS)}` : ''} ${pick(FORMS)}`;
  const r = random();
  const given =
    r < 0.6
      ? pick(GIVEN)
      : r < 0.9
        ? `${pick(GIVEN)} ${pick(GIVEN)}`
        : `${pick(GIVEN)} ${pick(GIVEN)} ${pick(GIVEN)}`;
  return `${given} ${pick(SURNAMES)}`;
}

function slip(name: string): string {
  const at = 1 + Math.floor(random() * Math.max(1, name.length - 2));
  return name.slice(0, at) + name.slice(at + 1);
}

/** Typed-name mix: 60 % the same name (case or accents varied), 25 % a close variant, 15 % another name. */
function typedName(holder: AccountHolder, isOrganisation: boolean): string {
  const name = holder.names[0]!;
  const r = random();
  if (r < 0.3) return name;
  if (r < 0.45) return name.toUpperCase();
  if (r < 0.6) return name.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (r < 0.75) return slip(name);
  if (r < 0.85)
    return isOrganisation
      ? name.split(' ').slice(0, -1).join(' ')
      : `${name[0]}. ${name.split(' ').at(-1)}`;
  return holderName(isOrganisation);
}

console.log(runContext().header);

const ACCOUNTS = 5_000;
const PAIRS = 200_000;
const accounts = Array.from({ length: ACCOUNTS }, () => {
  const isOrganisation = random() < 0.3;
  const names = [holderName(isOrganisation)];
  if (!isOrganisation && random() < 0.1) names.push(holderName(false));
  const holder: AccountHolder = { holderType: isOrganisation ? 'organisation' : 'person', names };
  return { holder, isOrganisation };
});
// Every pair gets its own typed string object, as a request would; holders recur, as accounts do.
const pairs = Array.from({ length: PAIRS }, () => {
  const account = pick(accounts);
  return { typed: typedName(account.holder, account.isOrganisation), holder: account.holder };
});
const meanLength = (xs: readonly string[]): number =>
  xs.reduce((n, x) => n + x.length, 0) / xs.length;

interface Run {
  /** Pairs per second of wall-clock time. */
  readonly pairsPerSecond: number;
  /** Pairs per second of this process's CPU time: what one core does, less disturbed by other load. */
  readonly pairsPerCpuSecond: number;
  readonly outcomes: Record<string, number>;
}

function run(matcher: NameMatcher, rounds: number): Run {
  const outcomes: Record<string, number> = { MTCH: 0, CMTC: 0, NMTC: 0 };
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const pair of pairs) outcomes[matcher.match(pair.typed, pair.holder).outcome]!++;
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    pairsPerSecond: (rounds * pairs.length) / seconds,
    pairsPerCpuSecond: (rounds * pairs.length) / cpuSeconds,
    outcomes,
  };
}

// Heap taken by the library's tables: module load (the generated tables) plus the indexes built once.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const { createNameMatcher } = await import('@vop/name-matching');
const matcher = createNameMatcher();
gc?.();
const tablesHeap = process.memoryUsage().heapUsed - heapBefore;
const uncached = createNameMatcher({ cacheSize: 0 });

run(matcher, 1); // warm-up: JIT, and the holder-name cache
const cached = run(matcher, 3);
run(uncached, 1);
const cold = run(uncached, 2);

const format = (n: number): string => Math.round(n).toLocaleString('en-GB');
console.log(
  `machine            ${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}; node ${process.version}; one thread`,
);
console.log(
  `pairs              ${format(PAIRS)} per round over ${format(ACCOUNTS)} accounts (30 % organisations, 10 % of persons joint)`,
);
console.log(
  `name lengths       holder ${meanLength(pairs.map((p) => p.holder.names[0]!)).toFixed(1)} chars, typed ${meanLength(pairs.map((p) => p.typed)).toFixed(1)} chars on average`,
);
console.log(
  `outcome mix        ${Object.entries(cached.outcomes)
    .map(([k, v]) => `${k} ${((v / (3 * PAIRS)) * 100).toFixed(0)} %`)
    .join(', ')}`,
);
console.log(
  `throughput         ${format(cached.pairsPerSecond)} pairs/s wall clock, ${format(cached.pairsPerCpuSecond)} pairs per CPU-second, with the holder-name cache (default, 20,000 names)`,
);
console.log(
  `                   ${format(cold.pairsPerSecond)} pairs/s wall clock, ${format(cold.pairsPerCpuSecond)} pairs per CPU-second, without any cache (every name normalised per pair)`,
);
console.log(
  `load average       ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (other processes share the machine's cores)`,
);
console.log(
  `tables heap        ${(tablesHeap / 1024 / 1024).toFixed(1)} MiB${gc ? '' : ' (approximate: run with --expose-gc)'}`,
);
