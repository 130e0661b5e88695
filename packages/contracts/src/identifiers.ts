import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import UkModulusChecking from 'uk-modulus-checking';
import { z } from './zod.js';

/** IBAN in electronic form (no spaces, upper case) after ISO 13616 country-length and mod-97 checks. */
export const Iban = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? '')
  .refine((value) => isValidIBAN(value), { message: 'INVALID_IBAN' })
  .openapi({
    type: 'string',
    example: 'DE89370400440532013000',
    description: 'IBAN (spaces allowed)',
  });

export const Bic = z
  .string()
  .max(11)
  .transform((value) => value.trim().toUpperCase())
  .refine((value) => isValidBIC(value), { message: 'INVALID_BIC' })
  .openapi({ type: 'string', example: 'COBADEFFXXX' });

/** C0 and C1 control characters (tab and line breaks too: a name is one line), U+FFFD (bytes that were not UTF-8). */

const NAME_UNSAFE = /[\u0000-\u001F\u007F-\u009F\uFFFD]/;

export const HolderName = z
  .string()
  .trim()
  .min(1)
  .max(140) // ISO 20022 Max140Text, the scheme's name field
  .refine((value) => !NAME_UNSAFE.test(value), { message: 'INVALID_CHARACTERS' })
  .openapi({ example: 'Erika Mustermann' });

export const Lei = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[0-9A-Z]{18}[0-9]{2}$/, 'INVALID_LEI')
  .openapi({ example: '5299000J2N45DDNE4Y28' });

/** UK sort code: six digits, written with or without dashes or spaces (12-34-56). */
export const SortCode = z
  .string()
  .max(16)
  .transform((value) => value.replace(/[\s-]/g, ''))
  .refine((value) => /^\d{6}$/.test(value), { message: 'INVALID_SORT_CODE' })
  .openapi({ type: 'string', example: '08-99-99', description: 'six digits, dashes allowed' });

/** UK account number: eight digits (spaces allowed). */
export const UkAccountNumber = z
  .string()
  .max(16)
  .transform((value) => value.replace(/\s/g, ''))
  .refine((value) => /^\d{8}$/.test(value), { message: 'INVALID_ACCOUNT_NUMBER' })
  .openapi({ type: 'string', example: '66374958', description: 'eight digits' });

/**
 * Whether a sort code and account number pass VocaLink's modulus check (the uk-modulus-checking
 * library and its bundled weight table; a sort code the table does not list passes, as VocaLink rules).
 */
export function passesModulusCheck(sortCode: string, accountNumber: string): boolean {
  return new UkModulusChecking({ sortCode, accountNumber }).isValid();
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
