import { GENERATION_MARKERS, PARTICLES, PATRONYMIC_PARTICLES } from '../tables/lexicon.js';
import { joinTokens, makeToken, type Token } from '../text/token.js';
import type { PersonName } from '../normalised-name.js';
import { FACTORS } from '../scoring.js';
import { matchesInFull, weaker, withoutAddressForm } from './address-form.js';
import { alignTokens, rejoinSplitWords, sameSequence } from './align.js';
import { hyphenatedOrderSwapped, marksAnotherPerson } from './person-markers.js';
import { TokenMatcher } from './token-match.js';
import { rejected, ScoreSheet, type Verdict } from './verdict.js';

interface WithoutGeneration {
  readonly tokens: readonly Token[];
  readonly generation: string | undefined;
}

function splitGeneration(tokens: readonly Token[]): WithoutGeneration {
  const last = tokens[tokens.length - 1];
  // "Kim Min-jun": jun is half of a given name here, not Junior.
  const generation =
    last && tokens.length > 2 && !tokens[tokens.length - 2]!.hyphenNext
      ? GENERATION_MARKERS.get(last.text)
      : undefined;
  return generation
    ? { tokens: tokens.slice(0, -1), generation }
    : { tokens, generation: undefined };
}

/** Whether the last word of `marked` appears among the words of `other`. */
function hasText(other: readonly Token[], marked: readonly Token[]): boolean {
  const word = marked[marked.length - 1]!.text;
  return other.some((t) => t.text === word);
}

const isParticle = (token: Token): boolean =>
  PARTICLES.has(token.text) || PATRONYMIC_PARTICLES.has(token.text);

const CONSONANTS_ONLY = /^[bcdfghjklmnpqrstvwxz]{2,3}$/;
/** "HP Müller", "JC Juncker": a short run of consonants is a set of initials written together. */
function splitRunTogetherInitials(tokens: readonly Token[]): readonly Token[] {
  if (!tokens.some((t) => CONSONANTS_ONLY.test(t.text))) return tokens;
  return tokens.flatMap((t) =>
    CONSONANTS_ONLY.test(t.text)
      ? [...t.text].map((letter) => makeToken(letter, letter, t.transliterated))
      : [t],
  );
}

/**
 * Compares one typed person's name with one holder's. Safety rules come first and answer NMTC outright:
 * a different name in place of one of the holder's, a surname or initials alone, a different surname.
 */
export function comparePersons(
  typed: PersonName,
  holder: PersonName,
  matcher: TokenMatcher,
): Verdict {
  const plain = compareNames(typed, holder, matcher);
  const addressed = withoutAddressForm(typed, holder);
  if (!addressed) return plain;
  const verdict = compareNames(addressed, holder, matcher);
  if (matchesInFull(verdict)) return verdict;
  // "M. Jean Dupont" for Marie Dupont: read as Monsieur Jean Dupont it names someone else, so the
  // initial reading (M. = Marie, Jean an extra name) must not win on its own.
  return weaker(plain, verdict);
}

function compareNames(typed: PersonName, holder: PersonName, matcher: TokenMatcher): Verdict {
  if (typed.tokens.length === 0) return rejected('EMPTY_NAME');
  const sheet = new ScoreSheet();
  if (typed.titleRemoved || holder.titleRemoved) sheet.note('TITLE_IGNORED');

  let typedSplit = splitGeneration(typed.tokens);
  let holderSplit = splitGeneration(holder.tokens);
  // "Kim Min Jun" for Kim Min-jun: a marker word that the other name has as a plain word is a name.
  if (typedSplit.generation && !holderSplit.generation && hasText(holder.tokens, typed.tokens))
    typedSplit = { tokens: typed.tokens, generation: undefined };
  if (holderSplit.generation && !typedSplit.generation && hasText(typed.tokens, holder.tokens))
    holderSplit = { tokens: holder.tokens, generation: undefined };
  if (
    typedSplit.generation &&
    holderSplit.generation &&
    typedSplit.generation !== holderSplit.generation
  ) {
    return rejected('NAME_MISMATCH', 0.5);
  }
  // João Silva Filho is the son of João Silva; John Smith Jr. may be his father's namesake.
  if (typedSplit.generation !== holderSplit.generation) return rejected('PERSON_MARKER', 0.5);

  let typedTokens = typedSplit.tokens;
  let holderTokens = holderSplit.tokens;
  if (typedTokens[0]?.transliterated !== holderTokens[0]?.transliterated) {
    sheet.applyOnce(FACTORS.transliteration, 'TRANSLITERATION');
  }
  if (sameSequence(typedTokens, holderTokens)) return sheet.verdict();
  if (marksAnotherPerson(typedTokens, holderTokens, matcher)) return rejected('PERSON_MARKER', 0.5);
  if (typedTokens.length !== holderTokens.length) {
    const fromTyped = rejoinSplitWords(typedTokens, holderTokens);
    const fromHolder = rejoinSplitWords(holderTokens, fromTyped.words);
    if (fromTyped.changed || fromHolder.changed) sheet.note('COSMETIC');
    typedTokens = fromTyped.words;
    holderTokens = fromHolder.words;
    if (sameSequence(typedTokens, holderTokens)) return sheet.verdict();
  }
  // Written as one word on one side: "FridrichBuchenberg" against "Friedrich Buchenberg".
  if (holderTokens.length > 1 && typedTokens.length === 1) {
    const whole = matcher.match(typedTokens[0]!, joinTokens(holderTokens), 'organisation');
    if (whole) {
      sheet.note('COSMETIC');
      if (whole.kind === 'typo') sheet.apply(whole.factor, 'TYPO');
      return sheet.verdict();
    }
  }

  typedTokens = splitRunTogetherInitials(typedTokens);
  holderTokens = splitRunTogetherInitials(holderTokens);
  const alignment = alignTokens(typedTokens, holderTokens, matcher, 'person');
  const agreement = alignment.pairs.length / Math.max(typedTokens.length, holderTokens.length);
  const extraTyped = alignment.unmatchedTyped.filter((i) => !isParticle(typedTokens[i]!));
  const missingHolder = alignment.unmatchedHolder.filter((i) => !isParticle(holderTokens[i]!));
  const fullPairs = alignment.pairs.filter((p) => p.match.kind !== 'initial');

  if (fullPairs.length === 0)
    return rejected(alignment.pairs.length > 0 ? 'INITIALS_ONLY' : 'NAME_MISMATCH', agreement);
  if (extraTyped.length > 0 && missingHolder.length > 0)
    return rejected('NAME_MISMATCH', agreement);

  const holderWords = holderTokens.filter((t) => !isParticle(t)).length;
  if (holderWords >= 2) {
    // The holder's surname (last word) must be there in full.
    let surname = holderTokens.length - 1;
    while (surname > 0 && isParticle(holderTokens[surname]!)) surname--;
    const isFull = (holderIndex: number): boolean =>
      alignment.pairs.some((p) => p.holder === holderIndex && p.match.kind !== 'initial');
    // A double surname may be shortened to its first part (García López → García, Müller-Schmidt → Müller).
    const firstSurnamePart = surname - 1;
    const typedLast = typedTokens.length - 1;
    const shortenedDoubleSurname =
      holderWords >= 3 &&
      firstSurnamePart > 0 &&
      !isParticle(holderTokens[firstSurnamePart]!) &&
      alignment.pairs.some(
        (p) => p.holder === firstSurnamePart && p.typed === typedLast && p.match.kind !== 'initial',
      );
    if (!isFull(surname) && !shortenedDoubleSurname) return rejected('NAME_MISMATCH', agreement);
    if (alignment.pairs.length === 1) return rejected('SURNAME_ONLY', agreement);
  }
  for (const index of extraTyped) {
    // An added middle name is tolerated; an added first name or surname names someone else.
    if (index === 0 || index === typedTokens.length - 1)
      return rejected('NAME_MISMATCH', agreement);
    sheet.apply(FACTORS.extraName, 'EXTRA_NAME');
  }
  for (let i = 0; i < missingHolder.length; i++)
    sheet.apply(FACTORS.middleNameMissing, 'MIDDLE_NAME_MISSING');
  for (const index of alignment.unmatchedTyped)
    if (isParticle(typedTokens[index]!)) sheet.apply(FACTORS.particleMissing, 'EXTRA_NAME');
  for (const index of alignment.unmatchedHolder)
    if (isParticle(holderTokens[index]!))
      sheet.apply(FACTORS.particleMissing, 'MIDDLE_NAME_MISSING');

  for (const pair of alignment.pairs) {
    const { kind, factor } = pair.match;
    if (kind === 'transliteration') sheet.applyOnce(FACTORS.transliteration, 'TRANSLITERATION');
    else if (kind === 'spellingVariant') sheet.apply(factor, 'TRANSLITERATION');
    else if (kind === 'typo') sheet.apply(factor, 'TYPO');
    else if (kind === 'nickname') sheet.apply(factor, 'NICKNAME');
    else if (kind === 'initial') sheet.apply(factor, 'INITIALS');
  }
  if (alignment.reordered) {
    if (hyphenatedOrderSwapped(typedTokens, holderTokens, alignment))
      return rejected('PERSON_MARKER', agreement);
    const patronymic = [...typedTokens, ...holderTokens].some((t) =>
      PATRONYMIC_PARTICLES.has(t.text),
    );
    // Muhammad bin Salman and Salman bin Muhammad are father and son.
    if (patronymic) return rejected('NAME_MISMATCH', agreement);
    sheet.apply(FACTORS.wordOrder, 'WORD_ORDER');
  }
  return sheet.verdict();
}
