import { composeIBAN } from 'ibantools';

/** An account a bank of the scheme holds, with the name a payer types to get a match. */
export interface SchemeAccount {
  accountNumber: number;
  name: string;
  holderType: 'person' | 'organisation';
}

/** One bank of the scheme in a box: fictional BIC, German bank code and PSD2 authorisation number. */
export interface SchemeBank {
  /** Names the bank's data folder and its certificates' common names. */
  key: string;
  name: string;
  bic: string;
  bankCode: string;
  /** The participant certificate's organizationIdentifier and the directory's authorisationNumber. */
  authorisationNumber: string;
  accounts: readonly SchemeAccount[];
}

export const SCHEME_COUNTRY = 'DE';

/** Fictional banks: the BICs belong to no real institution and the bank codes to no real German bank. */
export const SCHEME_BANKS: readonly SchemeBank[] = [
  {
    key: 'bank-a',
    name: 'Bank A',
    bic: 'SIABDEFFXXX',
    bankCode: '10010010',
    authorisationNumber: 'PSDXX-SIAB-000001',
    accounts: [
      { accountNumber: 1001, name: 'Anna Schmidt', holderType: 'person' },
      { accountNumber: 1002, name: 'Lukas Weber', holderType: 'person' },
      { accountNumber: 1003, name: 'Brennerei Alpenblick GmbH', holderType: 'organisation' },
    ],
  },
  {
    key: 'bank-b',
    name: 'Bank B',
    bic: 'SIBBDEFFXXX',
    bankCode: '20020020',
    authorisationNumber: 'PSDXX-SIBB-000002',
    accounts: [
      { accountNumber: 2001, name: 'Erika Mustermann', holderType: 'person' },
      { accountNumber: 2002, name: 'Jonas Becker', holderType: 'person' },
      { accountNumber: 2003, name: 'Gartenbau Lindner GmbH', holderType: 'organisation' },
    ],
  },
  {
    key: 'bank-c',
    name: 'Bank C',
    bic: 'SICBDEFFXXX',
    bankCode: '30030030',
    authorisationNumber: 'PSDXX-SICB-000003',
    accounts: [
      { accountNumber: 3001, name: 'Marie Fischer', holderType: 'person' },
      { accountNumber: 3002, name: 'Paul Hoffmann', holderType: 'person' },
      { accountNumber: 3003, name: 'Kaffeerösterei Nordlicht GmbH', holderType: 'organisation' },
    ],
  },
];

/** The German IBAN (ISO 13616 check digits) of an account number at a bank code. */
export function schemeIban(bankCode: string, accountNumber: number): string {
  const iban = composeIBAN({
    countryCode: SCHEME_COUNTRY,
    bban: `${bankCode}${String(accountNumber).padStart(10, '0')}`,
  });
  if (iban === null) throw new RangeError(`no IBAN for bank code ${bankCode}`);
  return iban;
}
