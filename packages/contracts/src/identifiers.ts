import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
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
