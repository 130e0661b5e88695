/** A GB IBAN's BBAN: bank code (4 letters), sort code (6 digits), account number (8 digits). */
const GB_IBAN = /^GB\d{2}[A-Z]{4}(\d{6})(\d{8})$/;

export interface DomesticAccountNumber {
  sortCode: string;
  accountNumber: string;
}

/**
 * The UK domestic account (sort code and account number) an account is found by: the one written for
 * it, otherwise its GB IBAN's own. An account with neither has none.
 */
export function domesticAccountOf(account: {
  iban: string;
  domesticAccount?: DomesticAccountNumber | undefined;
}): DomesticAccountNumber | undefined {
  if (account.domesticAccount !== undefined) return account.domesticAccount;
  const match = GB_IBAN.exec(account.iban);
  if (match === null) return undefined;
  return { sortCode: match[1] as string, accountNumber: match[2] as string };
}
