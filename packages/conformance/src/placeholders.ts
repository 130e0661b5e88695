import { randomUUID } from 'node:crypto';
import type { ConformanceFixture } from './types.js';

const HOUR_MS = 60 * 60 * 1000;

/** An ISO 8601 timestamp with milliseconds in a fixed offset, e.g. 2026-11-25T12:00:00.000+02:00. */
function withOffset(instant: Date, offsetMinutes: number): string {
  const local = new Date(instant.getTime() + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  const hours = String(Math.floor(absolute / 60)).padStart(2, '0');
  const minutes = String(absolute % 60).padStart(2, '0');
  return `${local}${sign}${hours}:${minutes}`;
}

/** The clock and id placeholders, fresh for each case. */
function dynamicValues(now: Date): Record<string, string> {
  const uuid = randomUUID();
  return {
    uuid,
    UUID: uuid.toUpperCase(),
    now: now.toISOString(),
    nowSeconds: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    nowPlus0200: withOffset(now, 120),
    today: now.toISOString().slice(0, 10),
    'now-1h': new Date(now.getTime() - HOUR_MS).toISOString(),
    'now+1h': new Date(now.getTime() + HOUR_MS).toISOString(),
  };
}

function flatten(prefix: string, value: unknown, into: Record<string, string>): void {
  if (typeof value === 'string') into[prefix] = value;
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value))
      flatten(prefix === '' ? key : `${prefix}.${key}`, inner, into);
}

/** Other spellings of the fixture's values a case may send: small letters, short BICs, print form. */
function derivedValues(fixture: ConformanceFixture): Record<string, string> {
  return {
    responderBicLower: fixture.responderBic.toLowerCase(),
    requesterBicLower: fixture.requesterBic.toLowerCase(),
    requesterBic8: fixture.requesterBic.slice(0, 8),
    foreignBic8: fixture.foreignBic.slice(0, 8),
    'person.ibanPrint': fixture.person.iban.replace(/(.{4})(?=.)/g, '$1 '),
    'organisation.leiLower': fixture.organisation.lei.toLowerCase(),
  };
}

/** Fills `{{name}}` placeholders in every string of a value; an unknown name is an error. */
export function placeholderFiller(fixture: ConformanceFixture, now: Date): <T>(value: T) => T {
  const values = { ...dynamicValues(now), ...derivedValues(fixture) };
  flatten('', fixture, values);
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(/\{\{([^}]+)\}\}/g, (_match, name: string) => {
        const replacement = values[name];
        if (replacement === undefined) throw new Error(`unknown placeholder {{${name}}}`);
        return replacement;
      });
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    return value;
  };
  return <T>(value: T) => fill(value) as T;
}
