import { countrySpecs } from 'ibantools';

/** Where an IBAN of one country carries its national bank code, and which characters it may hold. */
export interface BankCodePosition {
  /** Offset in the BBAN (the IBAN after its 4 first characters) and length. */
  start: number;
  length: number;
  /** The whole bank code, e.g. /^[0-9]{8}$/ for DE. */
  pattern: RegExp;
}

/** The BBAN's character class at each position, from ibantools' pattern (`[0-9]{10}[A-Z0-9]{11}…`). */
function classesOf(bbanPattern: string): string[] {
  const classes: string[] = [];
  for (const [, characters, count] of bbanPattern.matchAll(/\[([^\]]+)\]\{(\d+)\}/g))
    for (let index = 0; index < Number(count); index++) classes.push(characters ?? 'A-Z0-9');
  return classes;
}

/** ['0-9', '0-9', 'A-Z'] → `[0-9]{2}[A-Z]{1}`. */
function runsOf(classes: string[]): string {
  let pattern = '';
  for (let index = 0; index < classes.length;) {
    let end = index;
    while (classes[end + 1] === classes[index]) end++;
    pattern += `[${classes[index]}]{${end - index + 1}}`;
    index = end + 1;
  }
  return pattern;
}

function positionOf(country: string): BankCodePosition | undefined {
  const spec = countrySpecs[country];
  const range = spec?.bank_identifier?.match(/^(\d+)-(\d+)$/);
  if (spec === undefined || range === null || range === undefined) return undefined;
  const start = Number(range[1]);
  const length = Number(range[2]) - start + 1;
  const classes = classesOf(spec.bban_regexp ?? '').slice(start, start + length);
  const pattern = classes.length === length ? runsOf(classes) : `[A-Z0-9]{${length}}`;
  return { start, length, pattern: new RegExp(`^${pattern}$`) };
}

/** Every IBAN country whose IBAN carries a bank code, known once. */
const POSITIONS = new Map(
  Object.keys(countrySpecs).flatMap((country) => {
    const position = positionOf(country);
    return position === undefined ? [] : [[country, position] as const];
  }),
);

/** The bank-code position of an IBAN country; undefined when its IBAN carries none (or it is no IBAN country). */
export function bankCodePosition(country: string): BankCodePosition | undefined {
  return POSITIONS.get(country);
}

export function isIbanCountry(country: string): boolean {
  return countrySpecs[country]?.chars !== undefined;
}

/** The national bank code of an IBAN in electronic form (already valid), or undefined. */
export function bankCodeOf(iban: string): string | undefined {
  const position = POSITIONS.get(iban.slice(0, 2));
  if (position === undefined) return undefined;
  const start = 4 + position.start;
  return iban.slice(start, start + position.length);
}
