import type { GivenNames } from '../joint-holders.js';
import type { PersonName } from '../normalised-name.js';
import { FACTORS } from '../scoring.js';
import { CONNECTORS } from '../tables/lexicon.js';
import { TRADE_WORDS } from '../tables/sole-trader-words.js';
import { sameSpelling, type Token } from '../text/token.js';
import { comparePersons } from './person-comparison.js';
import type { TokenMatcher } from './token-match.js';
import { rejected, type Verdict } from './verdict.js';

/** A sole trader's name read as a person's name and the trade words around it. */
interface PersonWithTrade {
  readonly person: readonly Token[];
  readonly trade: readonly Token[];
}

const isTrade = (token: Token): boolean =>
  TRADE_WORDS.has(token.text) || TRADE_WORDS.has(token.alt);
const isTradeOrJoin = (token: Token): boolean => isTrade(token) || CONNECTORS.has(token.text);

const MAX_PERSON_WORDS = 4;

/** Cheap test before any reading: a trade word at either end of the name. */
export function mayBeSoleTrader(tokens: readonly Token[]): boolean {
  return tokens.length > 2 && (isTrade(tokens[0]!) || isTrade(tokens[tokens.length - 1]!));
}

/** "Hans Müller Malerbetrieb", "Boulangerie Jean Dupont": trade words at either end of a person's name. */
export function splitTrade(
  tokens: readonly Token[],
  names: GivenNames,
): PersonWithTrade | undefined {
  let start = 0;
  while (start < tokens.length && isTradeOrJoin(tokens[start]!)) start++;
  let end = tokens.length;
  while (end > start && isTradeOrJoin(tokens[end - 1]!)) end--;
  if (start === 0 && end === tokens.length) return undefined;
  const person = tokens.slice(start, end);
  const first = person[0];
  // A known given name or an initial first: "Bäckerei Müller" alone is no person's name.
  if (
    person.length < 2 ||
    person.length > MAX_PERSON_WORDS ||
    !(first!.text.length === 1 || names.isGivenName(first!))
  )
    return undefined;
  const trade = [...tokens.slice(0, start), ...tokens.slice(end)].filter(isTrade);
  return trade.length > 0 ? { person, trade } : undefined;
}

function sameTrade(a: readonly Token[], b: readonly Token[]): boolean {
  return (
    a.length === b.length &&
    a.every((t) => b.some((u) => sameSpelling(t, u))) &&
    b.every((t) => a.some((u) => sameSpelling(t, u)))
  );
}

/**
 * A sole trader compared as person plus trade: the persons must match, the same trade words are no
 * difference, trade words on one side only make a close match, two different trades two businesses.
 * Undefined when neither name has trade words around a person's name.
 */
export function compareSoleTraders(
  typed: readonly Token[],
  holder: readonly Token[],
  matcher: TokenMatcher,
): Verdict | undefined {
  const typedTrade = splitTrade(typed, matcher);
  const holderTrade = splitTrade(holder, matcher);
  if (!typedTrade && !holderTrade) return undefined;
  const asPerson = (tokens: readonly Token[]): PersonName => ({ tokens, titleRemoved: false });
  const verdict = comparePersons(
    asPerson(typedTrade?.person ?? typed),
    asPerson(holderTrade?.person ?? holder),
    matcher,
  );
  if (verdict.kind === 'rejected') return verdict;
  if (typedTrade && holderTrade) {
    return sameTrade(typedTrade.trade, holderTrade.trade)
      ? verdict
      : rejected('NAME_MISMATCH', 0.5);
  }
  return {
    kind: 'scored',
    score: verdict.score * FACTORS.tradeName,
    reasons: verdict.reasons.includes('TRADE_NAME')
      ? verdict.reasons
      : [...verdict.reasons, 'TRADE_NAME'],
  };
}
