function mod97(digits: string): number {
  let remainder = 0;
  for (const char of digits) remainder = (remainder * 10 + Number(char)) % 97;
  return remainder;
}

const lettersToDigits = (text: string): string =>
  [...text].map((char) => (/[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char)).join('');

/** A valid German IBAN (ISO 13616 check digits) made from a number, for test data. */
export function germanIban(accountNumber: number, bankCode = '37040044'): string {
  const bban = `${bankCode}${String(accountNumber).padStart(10, '0')}`;
  const check = 98 - mod97(lettersToDigits(`${bban}DE00`));
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/** A valid GB IBAN (ISO 13616 check digits): bank code, sort code and account number, for test data. */
export function britishIban(sortCode: string, accountNumber: string, bankCode = 'NWBK'): string {
  const bban = `${bankCode}${sortCode}${accountNumber}`;
  const check = 98 - mod97(lettersToDigits(`${bban}GB00`));
  return `GB${String(check).padStart(2, '0')}${bban}`;
}
