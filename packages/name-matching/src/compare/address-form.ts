import type { PersonName } from '../normalised-name.js';
import type { ReasonCode } from '../types.js';
import type { Verdict } from './verdict.js';

/**
 * One-letter abbreviations of forms of address, written before a full name: French M.
 * (Monsieur); Polish, Czech, Slovak and Lithuanian P. (Pan, Pani, Ponas); Slovenian and Croatian
 * G. (Gospod, Gospodin); Greek Κ. (Κύριος, Κυρία); Spanish D. (Don). Each is also an initial
 * ("M. Dupont"), so it counts as a title only before a full name.
 */
export const ONE_LETTER_ADDRESS_FORMS: ReadonlySet<string> = new Set(['m', 'p', 'g', 'k', 'd']);

/**
 * "M. Jean Dupont" for Jean Dupont: the typed name without its leading letter, when that letter
 * is a form of address and the rest is as many whole words as the holder's name (no initials).
 */
export function withoutAddressForm(typed: PersonName, holder: PersonName): PersonName | undefined {
  const words = typed.tokens;
  if (words.length < 3 || !ONE_LETTER_ADDRESS_FORMS.has(words[0]!.text)) return undefined;
  if (holder.tokens.length !== words.length - 1) return undefined;
  const rest = words.slice(1);
  if (rest.some((t) => t.text.length === 1) || holder.tokens.some((t) => t.text.length === 1))
    return undefined;
  return { tokens: rest, titleRemoved: true };
}

const PARTIAL: ReadonlySet<ReasonCode> = new Set(['INITIALS', 'MIDDLE_NAME_MISSING', 'EXTRA_NAME']);

/** Every word of the rest paired with a whole word of the holder's. */
export function matchesInFull(verdict: Verdict): boolean {
  return verdict.kind === 'scored' && !verdict.reasons.some((r) => PARTIAL.has(r));
}

export function weaker(a: Verdict, b: Verdict): Verdict {
  if (a.kind === 'rejected') return a;
  if (b.kind === 'rejected') return b;
  return a.score <= b.score ? a : b;
}
