import {
  electronicFormatIBAN,
  validateBIC,
  validateIBAN,
  ValidationErrorsBIC,
  ValidationErrorsIBAN,
} from 'ibantools';

export type IdentifierProblem = 'MISSING' | 'FORMAT' | 'COUNTRY' | 'LENGTH' | 'CHECKSUM';

export type IdentifierCheck =
  | { readonly valid: true; /** Upper case, without spaces. */ readonly normalised: string }
  | { readonly valid: false; readonly problem: IdentifierProblem };

const invalid = (problem: IdentifierProblem): IdentifierCheck => ({ valid: false, problem });

/**
 * IBAN per ISO 13616: known country, that country's length and BBAN pattern, mod-97 check digits.
 * Spaces and lower case (the paper form) are accepted. National account check digits are not judged:
 * they are not part of ISO 13616 and the account's own bank is the one to judge them.
 */
export function validateIban(iban: string): IdentifierCheck {
  const normalised = electronicFormatIBAN(iban.trim()) ?? '';
  if (normalised === '') return invalid('MISSING');
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(normalised)) return invalid('FORMAT');
  const errors = validateIBAN(normalised).errorCodes.filter(
    (e) => e !== ValidationErrorsIBAN.WrongAccountBankBranchChecksum,
  );
  if (errors.length === 0) return { valid: true, normalised };
  if (errors.includes(ValidationErrorsIBAN.NoIBANCountry)) return invalid('COUNTRY');
  if (errors.includes(ValidationErrorsIBAN.WrongBBANLength)) return invalid('LENGTH');
  if (
    errors.includes(ValidationErrorsIBAN.WrongBBANFormat) ||
    errors.includes(ValidationErrorsIBAN.ChecksumNotNumber)
  )
    return invalid('FORMAT');
  return invalid('CHECKSUM');
}

/** BIC per ISO 9362: 4-letter party prefix, ISO 3166 country, 2-character location, optional 3-character branch. */
export function validateBic(bic: string): IdentifierCheck {
  const normalised = bic.trim().toUpperCase();
  if (normalised === '') return invalid('MISSING');
  const { valid, errorCodes } = validateBIC(normalised);
  if (valid) return { valid: true, normalised };
  return invalid(errorCodes.includes(ValidationErrorsBIC.NoBICCountry) ? 'COUNTRY' : 'FORMAT');
}

const LEI_FORMAT = /^[A-Z0-9]{18}[0-9]{2}$/;

/**
 * LEI per ISO 17442: 18 alphanumerics and two check digits, valid when the whole code, letters read as
 * 10..35, is 1 modulo 97 (ISO 7064 MOD 97-10). The small ISO 7064 packages on npm are single-maintainer
 * and little used, so these few lines are written here.
 */
export function validateLei(lei: string): IdentifierCheck {
  const normalised = lei.trim().toUpperCase();
  if (normalised === '') return invalid('MISSING');
  if (normalised.length !== 20) return invalid('LENGTH');
  if (!LEI_FORMAT.test(normalised)) return invalid('FORMAT');
  return mod97(normalised) === 1 ? { valid: true, normalised } : invalid('CHECKSUM');
}

function mod97(code: string): number {
  let remainder = 0;
  for (const ch of code) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder;
}
