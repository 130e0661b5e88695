const VISIBLE_IBAN_PREFIX = 4; // country code and check digits
const VISIBLE_IBAN_SUFFIX = 4;
/** Below this length a string is not an IBAN, and showing both ends would reveal most of it. */
const SHORTEST_IBAN_LENGTH = 15;

/** Masks an IBAN for logs: "DE89370400440532013000" → "DE89**************3000". Never returns the whole value. */
export function maskIban(iban: string): string {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  if (compact.length >= SHORTEST_IBAN_LENGTH) {
    return (
      compact.slice(0, VISIBLE_IBAN_PREFIX) +
      '*'.repeat(compact.length - VISIBLE_IBAN_PREFIX - VISIBLE_IBAN_SUFFIX) +
      compact.slice(-VISIBLE_IBAN_SUFFIX)
    );
  }
  // Too short to be a real IBAN: keep what could be a country code and hide the rest.
  const visible = compact.length > 2 ? 2 : 0;
  return compact.slice(0, visible) + '*'.repeat(compact.length - visible);
}

/** Masks a person's or company's name for logs: "John Smith" → "J*** S****". Never returns the whole value. */
export function maskName(name: string): string {
  return name
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== '')
    .map(maskWord)
    .join(' ');
}

function maskWord(word: string): string {
  // Array.from splits by code point, so an accented or non-Latin first letter is kept whole.
  const characters = Array.from(word);
  if (characters.length === 1) {
    return '*';
  }
  return characters[0] + '*'.repeat(characters.length - 1);
}
