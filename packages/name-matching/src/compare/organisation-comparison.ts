import type { OrganisationName } from '../normalised-name.js';
import { FACTORS } from '../scoring.js';
import { hasDigit, isRomanNumeral, joinTokens, type Token } from '../text/token.js';
import { alignTokens, rejoinSplitWords, sameSequence } from './align.js';
import type { TokenMatcher } from './token-match.js';
import { rejected, ScoreSheet, type Verdict } from './verdict.js';

const MIN_ACRONYM_LENGTH = 3;

function acronymOf(words: readonly Token[]): string {
  let acronym = '';
  for (const word of words) acronym += word.text[0] ?? '';
  return acronym;
}

function isAcronymOf(short: readonly Token[], long: readonly Token[]): boolean {
  return (
    short.length === 1 && long.length >= MIN_ACRONYM_LENGTH && short[0]!.text === acronymOf(long)
  );
}

/** Legal forms compared as identities: the same form written differently is no difference. */
function compareLegalForms(
  typed: OrganisationName,
  holder: OrganisationName,
  sheet: ScoreSheet,
): Verdict | null {
  const typedKeys = new Set(typed.legalForms.map((f) => f.key));
  const holderKeys = new Set(holder.legalForms.map((f) => f.key));
  const typedInHolder = [...typedKeys].every((k) => holderKeys.has(k));
  const holderInTyped = [...holderKeys].every((k) => typedKeys.has(k));
  // "Co., Ltd." is one form in the tables and two (Company, Limited) when written out.
  const sameCombined =
    typed.legalForms.length !== holder.legalForms.length &&
    typed.legalForms.map((f) => f.key).join('') === holder.legalForms.map((f) => f.key).join('');
  if ((typedInHolder && holderInTyped) || sameCombined) {
    const typedWritten = typed.legalForms
      .map((f) => f.written)
      .sort()
      .join(' ');
    const holderWritten = holder.legalForms
      .map((f) => f.written)
      .sort()
      .join(' ');
    if (typedWritten !== holderWritten) sheet.note('LEGAL_FORM_VARIANT');
    return null;
  }
  if (typedInHolder) sheet.apply(FACTORS.legalFormMissing, 'LEGAL_FORM_MISSING');
  else if (holderInTyped) sheet.apply(FACTORS.legalFormAdded, 'LEGAL_FORM_ADDED');
  // Deutsche Bank AG and Deutsche Bank GmbH are two companies.
  else return rejected('LEGAL_FORM_DIFFERENT', 0.8);
  return null;
}

/**
 * Compares organisation names: every word of each name must be accounted for by the other (a missing
 * or extra word names a sister company), legal forms are compared as identities, numbers exactly.
 */
export function compareOrganisations(
  typed: OrganisationName,
  holder: OrganisationName,
  matcher: TokenMatcher,
): Verdict {
  if (typed.core.length === 0) return rejected('EMPTY_NAME');
  const sheet = new ScoreSheet();
  let typedWords = typed.core;
  let holderWords = holder.core;
  if (typedWords[0]?.transliterated !== holderWords[0]?.transliterated) {
    sheet.applyOnce(FACTORS.transliteration, 'TRANSLITERATION');
  }

  if (!sameSequence(typedWords, holderWords)) {
    const typedJoined = joinTokens(typedWords);
    const holderJoined = joinTokens(holderWords);
    const joinedMatch =
      typedWords.length !== holderWords.length
        ? matcher.match(typedJoined, holderJoined, 'organisation')
        : null;
    if (joinedMatch && (joinedMatch.kind === 'exact' || joinedMatch.kind === 'transliteration')) {
      sheet.note('COSMETIC');
    } else {
      const fromTyped = rejoinSplitWords(typedWords, holderWords);
      const fromHolder = rejoinSplitWords(holderWords, fromTyped.words);
      if (fromTyped.changed || fromHolder.changed) sheet.note('COSMETIC');
      typedWords = fromTyped.words;
      holderWords = fromHolder.words;
      const alignment = alignTokens(typedWords, holderWords, matcher, 'organisation');
      const agreement = alignment.pairs.length / Math.max(typedWords.length, holderWords.length);
      if (alignment.unmatchedTyped.length > 0 || alignment.unmatchedHolder.length > 0) {
        if (isAcronymOf(typedWords, holderWords) || isAcronymOf(holderWords, typedWords)) {
          sheet.apply(FACTORS.acronym, 'ACRONYM');
        } else {
          const unmatched = [
            ...alignment.unmatchedTyped.map((i) => typedWords[i]!),
            ...alignment.unmatchedHolder.map((i) => holderWords[i]!),
          ];
          const numbers = unmatched.some((t) => hasDigit(t) || isRomanNumeral(t));
          return rejected(numbers ? 'NUMBER_MISMATCH' : 'NAME_MISMATCH', agreement);
        }
      } else {
        for (const pair of alignment.pairs) {
          const { kind, factor } = pair.match;
          if (kind === 'transliteration')
            sheet.applyOnce(FACTORS.transliteration, 'TRANSLITERATION');
          else if (kind === 'spellingVariant') sheet.apply(factor, 'TYPO');
          else if (kind === 'typo') sheet.apply(factor, 'TYPO');
        }
        if (alignment.reordered) sheet.apply(FACTORS.wordOrder, 'WORD_ORDER');
      }
    }
  }
  return compareLegalForms(typed, holder, sheet) ?? sheet.verdict();
}
