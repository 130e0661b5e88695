import { compareOrganisations } from './compare/organisation-comparison.js';
import { comparePersons } from './compare/person-comparison.js';
import { TokenMatcher } from './compare/token-match.js';
import { sameSequence } from './compare/align.js';
import { compareTruncated, hasCutLength } from './compare/truncated-name.js';
import { rejected, type Verdict } from './compare/verdict.js';
import { NameNormaliser } from './name-normaliser.js';
import type { NormalisedName, PersonName } from './normalised-name.js';
import {
  DEFAULT_THRESHOLDS,
  FACTORS,
  noMatchScore,
  OUTCOME_RANK,
  outcomeFor,
  roundScore,
} from './scoring.js';
import { ORGANISATION_WORDS } from './tables/lexicon.js';
import { TRADING_AS_FORMS } from './tables/sole-trader-words.js';
import { compareSoleTraders, mayBeSoleTrader } from './compare/sole-trader.js';
import type { Token } from './text/token.js';
import { LegalFormIndex } from './tables/legal-form-index.js';
import { NicknameIndex } from './tables/nickname-index.js';
import type {
  AccountHolder,
  HolderType,
  MatcherOptions,
  MatcherThresholds,
  MatchOutcome,
  MatchResult,
  NameMatcher,
  OutcomeThresholds,
  ReasonCode,
} from './types.js';

const DEFAULT_CACHE_SIZE = 20_000;

interface HolderName {
  readonly name: NormalisedName;
  readonly index: number;
  /** The stored name as given, disclosed on a match. */
  readonly raw: string;
  readonly type: HolderType;
}

interface Candidate {
  readonly outcome: MatchOutcome;
  readonly score: number;
  readonly reasons: readonly ReasonCode[];
  readonly holderName: string;
  readonly holderIndex: number;
}

function better(a: Candidate, b: Candidate | undefined): boolean {
  if (!b) return true;
  const rank = OUTCOME_RANK[a.outcome] - OUTCOME_RANK[b.outcome];
  return rank > 0 || (rank === 0 && a.score > b.score);
}

function validateThresholds(thresholds: OutcomeThresholds, holderType: HolderType): void {
  const { match, closeMatch } = thresholds;
  if (!(closeMatch > 0 && closeMatch <= match && match <= 1)) {
    throw new RangeError(`thresholds for ${holderType} must satisfy 0 < closeMatch <= match <= 1`);
  }
}

class VopNameMatcher implements NameMatcher {
  private readonly thresholds: MatcherThresholds;
  private readonly normaliser: NameNormaliser;
  private readonly tokens: TokenMatcher;
  private readonly nicknames: NicknameIndex;

  constructor(options: MatcherOptions) {
    this.thresholds = {
      person: options.person ?? DEFAULT_THRESHOLDS.person,
      organisation: options.organisation ?? DEFAULT_THRESHOLDS.organisation,
    };
    validateThresholds(this.thresholds.person, 'person');
    validateThresholds(this.thresholds.organisation, 'organisation');
    this.nicknames = new NicknameIndex();
    this.normaliser = new NameNormaliser(
      new LegalFormIndex(),
      this.nicknames,
      options.cacheSize ?? DEFAULT_CACHE_SIZE,
    );
    this.tokens = new TokenMatcher(this.nicknames);
  }

  match(typedName: string, holder: AccountHolder): MatchResult {
    const exactly = holder.names.indexOf(typedName);
    if (exactly >= 0 && typedName.trim() !== '') {
      return {
        outcome: 'MTCH',
        score: 1,
        matchedName: typedName,
        reasons: exactly > 0 ? ['ALTERNATE_NAME'] : [],
      };
    }
    const typed = this.normaliser.normalise(typedName);
    const same = this.sameAsAHolderName(typed, holder);
    if (same) return same;
    const typedPersons = typed.persons();
    const holderNames: HolderName[] = [];
    for (let index = 0; index < holder.names.length; index++) {
      const raw = holder.names[index]!;
      for (const part of tradingNameParts(raw)) {
        const name = this.normaliser.normaliseHolderName(part);
        holderNames.push({
          name,
          index,
          raw,
          type: this.holderTypeOf(name, holder.holderType, index),
        });
      }
    }
    let best: Candidate | undefined;
    for (let index = 0; index < holder.names.length; index++) {
      const raw = holder.names[index]!;
      if (!hasCutLength(raw)) continue;
      const stored = this.normaliser.normaliseHolderName(raw);
      const verdict = compareTruncated(typed.tokenised, raw, stored.tokenised);
      if (!verdict) continue;
      const type = holderNames.find((h) => h.index === index)!.type;
      // A company's name typed for a private person's account stays a no-match, cut or not.
      if (type === 'person' && typed.hasLegalForm() && !stored.hasLegalForm()) continue;
      const candidate = toCandidate(verdict, this.thresholds[type], raw, index);
      if (better(candidate, best)) best = candidate;
    }
    for (const { name, index, raw, type } of holderNames) {
      let candidate: Candidate | undefined;
      if (type === 'organisation') {
        candidate = toCandidate(
          this.judgeOrganisation(typed, name),
          this.thresholds.organisation,
          raw,
          index,
        );
      } else if (typedPersons.length === 1 || this.typedAsCompany(typed, name)) {
        candidate = toCandidate(
          this.judgePerson(typed, typedPersons[0]!, name),
          this.thresholds.person,
          raw,
          index,
        );
      }
      if (candidate && better(candidate, best)) best = candidate;
    }
    if (typedPersons.length > 1) {
      const personNames = holderNames.filter(
        (h) => h.type === 'person' && !this.typedAsCompany(typed, h.name),
      );
      if (personNames.length > 0) {
        const candidate = this.judgeSeveralPersons(typedPersons, personNames);
        if (better(candidate, best)) best = candidate;
      }
    }
    if (!best) return { outcome: 'NMTC', score: 0, reasons: ['EMPTY_NAME'] };
    if (best.outcome === 'NMTC') {
      const tradingAs = this.typedTradingAs(typedName, holder);
      if (tradingAs) return tradingAs;
    }
    const reasons = [...best.reasons];
    if (best.outcome !== 'NMTC' && best.holderIndex > 0) reasons.push('ALTERNATE_NAME');
    if (
      best.outcome === 'MTCH' &&
      reasons.length === 0 &&
      typedName.trim() !== best.holderName.trim()
    )
      reasons.push('COSMETIC');
    const result: MatchResult = { outcome: best.outcome, score: best.score, reasons };
    if (best.outcome !== 'NMTC') result.matchedName = best.holderName;
    return result;
  }

  /**
   * Fast path for the commonest answer: the typed name is one of the holder names word for word (case,
   * accents, umlaut spelling, punctuation and spacing aside).
   */
  private sameAsAHolderName(
    typedName: NormalisedName,
    holder: AccountHolder,
  ): MatchResult | undefined {
    const typed = typedName.tokenised;
    if (typed.tokens.length === 0) return undefined;
    for (let i = 0; i < holder.names.length; i++) {
      const stored = this.normaliser.normaliseHolderName(holder.names[i]!).tokenised;
      if (
        stored.tokensBeforeComma !== typed.tokensBeforeComma ||
        !sameSequence(stored.tokens, typed.tokens)
      )
        continue;
      if (stored.transliterated !== typed.transliterated) continue;
      const reasons: ReasonCode[] = ['COSMETIC'];
      if (i > 0) reasons.push('ALTERNATE_NAME');
      return { outcome: 'MTCH', score: FACTORS.cosmetic, matchedName: holder.names[i]!, reasons };
    }
    return undefined;
  }

  /** "John Smith t/a Smith Plumbing" typed for John Smith: one of its parts matches, a close match at best. */
  private typedTradingAs(typedName: string, holder: AccountHolder): MatchResult | undefined {
    const parts = tradingNameParts(typedName);
    if (parts.length === 1) return undefined;
    let best: MatchResult | undefined;
    for (const part of parts.slice(1)) {
      const result = this.match(part, holder);
      if (result.outcome !== 'NMTC' && (!best || result.score > best.score)) best = result;
    }
    if (!best) return undefined;
    const thresholds = this.thresholds[holder.holderType ?? 'person'];
    const score = Math.min(best.score * FACTORS.tradeName, thresholds.match - 0.001);
    const outcome = outcomeFor(score, thresholds);
    if (outcome === 'NMTC') return undefined;
    const reasons = best.reasons.filter((r) => r !== 'COSMETIC');
    return {
      outcome,
      score: roundScore(score),
      matchedName: best.matchedName!,
      reasons: [...reasons, 'TRADE_NAME'],
    };
  }

  /** The account's holder type governs its primary name; other names may be trading names with a legal form. */
  private holderTypeOf(
    name: NormalisedName,
    declared: HolderType | undefined,
    index: number,
  ): HolderType {
    if (declared && index === 0) return declared;
    const inferred = name.inferHolderType();
    if (!declared) return inferred;
    return name.organisation().legalForms.length > 0 ? 'organisation' : declared;
  }

  /** A company's name typed for a private person's account; a surname such as Sá is no legal form. */
  private typedAsCompany(typed: NormalisedName, holder: NormalisedName): boolean {
    if (!typed.mayHaveLegalForm()) return false;
    // "J.P. Martin", "C.A. Souza": initials at the start, not the forms JP or CA.
    const typedForms = typed.organisation().legalForms.filter((form) => !form.mayBeInitials);
    if (typedForms.length === 0 || holder.organisation().legalForms.length > 0) return false;
    const holderWords = new Set(holder.tokens.map((t) => t.text));
    return !typedForms.every((form) => holderWords.has(form.written));
  }

  private judgePerson(
    typed: NormalisedName,
    typedPerson: PersonName,
    holder: NormalisedName,
  ): Verdict {
    if (this.typedAsCompany(typed, holder)) return rejected('PERSON_VS_ORGANISATION', 0.5);
    const verdict = this.bestOverHolderPersons(typedPerson, holder);
    if (verdict.kind === 'scored') return verdict;
    if (!mayBeSoleTrader(typedPerson.tokens) && !mayBeSoleTrader(holder.tokens)) return verdict;
    let best: Verdict = verdict;
    for (const holderPerson of holder.persons()) {
      const soleTrader = compareSoleTraders(typedPerson.tokens, holderPerson.tokens, this.tokens);
      if (soleTrader && verdictScore(soleTrader) > verdictScore(best)) best = soleTrader;
    }
    return best;
  }

  private bestOverHolderPersons(typedPerson: PersonName, holder: NormalisedName): Verdict {
    let best: Verdict | undefined;
    for (const holderPerson of holder.persons()) {
      const verdict = comparePersons(typedPerson, holderPerson, this.tokens);
      if (!best || verdictScore(verdict) > verdictScore(best)) best = verdict;
    }
    return best!;
  }

  /**
   * "Hans und Grete Müller": every typed person must be a holder of the account. If only some are, the
   * payee still includes a holder: a close match at best.
   */
  private judgeSeveralPersons(
    typedPersons: readonly PersonName[],
    holderNames: readonly { name: NormalisedName; index: number; raw: string }[],
  ): Candidate {
    const perPerson = typedPersons.map((person) => {
      let best: Candidate | undefined;
      for (const { name, index, raw } of holderNames) {
        const candidate = toCandidate(
          this.bestOverHolderPersons(person, name),
          this.thresholds.person,
          raw,
          index,
        );
        if (better(candidate, best)) best = candidate;
      }
      return best!;
    });
    const worst = perPerson.reduce((a, b) => (better(a, b) ? b : a));
    const first = perPerson[0]!;
    if (worst.outcome !== 'NMTC')
      return { ...worst, holderName: first.holderName, holderIndex: first.holderIndex };
    const matched = perPerson.filter((c) => c.outcome !== 'NMTC');
    if (matched.length === 0) return worst;
    const bestMatched = matched.reduce((a, b) => (better(a, b) ? a : b));
    const score = Math.min(
      bestMatched.score * FACTORS.extraName,
      this.thresholds.person.match - 0.001,
    );
    const outcome = outcomeFor(score, this.thresholds.person);
    if (outcome === 'NMTC') return worst;
    return {
      outcome,
      score: roundScore(score),
      reasons: [...bestMatched.reasons, 'EXTRA_NAME'],
      holderName: bestMatched.holderName,
      holderIndex: bestMatched.holderIndex,
    };
  }

  private judgeOrganisation(typed: NormalisedName, holder: NormalisedName): Verdict {
    const typedName = typed.organisation();
    const holderName = holder.organisation();
    const verdict = compareOrganisations(typedName, holderName, this.tokens);
    // "Robert Bosch" for Robert Bosch GmbH: a person's name against their company's. Only a sole
    // proprietor's business (e.K., Einzelunternehmen) is the same person.
    if (
      verdict.kind === 'scored' &&
      verdict.reasons.includes('LEGAL_FORM_MISSING') &&
      typedName.legalForms.length === 0 &&
      holderName.legalForms.every((form) => form.generic !== 'SP') &&
      this.looksLikePersonName(holderName.core)
    ) {
      return rejected('PERSON_VS_ORGANISATION', 0.7);
    }
    // "Hans Müller" for "Hans Müller Malerbetrieb": a sole trader without a legal form is that person.
    // With a sole proprietor's form (e.K.) the form is missing from the typed name too.
    if (
      verdict.kind === 'rejected' &&
      typedName.legalForms.length === 0 &&
      holderName.legalForms.every((form) => form.generic === 'SP') &&
      (mayBeSoleTrader(typed.tokens) || mayBeSoleTrader(holderName.core))
    ) {
      const typedPersons = typed.persons();
      const formWords = new Set(holderName.legalForms.map((form) => form.written));
      const soleTrader =
        typedPersons.length === 1
          ? compareSoleTraders(
              typedPersons[0]!.tokens,
              formWords.size === 0 ? holder.tokens : withoutLegalForms(holder.tokens, formWords),
              this.tokens,
            )
          : undefined;
      if (soleTrader?.kind === 'scored' && holderName.legalForms.length > 0) {
        return {
          kind: 'scored',
          score: soleTrader.score * FACTORS.legalFormMissing,
          reasons: [...soleTrader.reasons, 'LEGAL_FORM_MISSING'],
        };
      }
      if (soleTrader && verdictScore(soleTrader) > verdictScore(verdict)) return soleTrader;
    }
    return verdict;
  }

  private looksLikePersonName(words: readonly Token[]): boolean {
    if (words.length < 2 || words.length > 3) return false;
    if (words.some((w) => ORGANISATION_WORDS.has(w.text) || w.text.length < 2)) return false;
    return this.nicknames.isGivenName(words[0]!);
  }
}

// "Hans Müller t/a Bäckerei Müller": one stored name holding the holder's name and a trading name.
const TRADING_AS = new RegExp(`\\s+(?:${TRADING_AS_FORMS.join('|')})\\s+`, 'i');
const MAY_BE_TRADING_AS = /[/]|as |dba|inh|propr/i;
function tradingNameParts(raw: string): readonly string[] {
  if (!MAY_BE_TRADING_AS.test(raw) || !TRADING_AS.test(raw)) return [raw];
  return [raw, ...raw.split(TRADING_AS).filter((part) => part.trim() !== '')];
}

/** "Hans Müller Malerbetrieb e.K." without its form: the words of the form are dropped at the end. */
function withoutLegalForms(tokens: readonly Token[], formWords: ReadonlySet<string>): Token[] {
  const kept = [...tokens];
  for (let joined = ''; kept.length > 0;) {
    joined = kept[kept.length - 1]!.text + joined;
    kept.pop();
    if (formWords.has(joined)) return kept;
  }
  return [...tokens];
}

function verdictScore(verdict: Verdict): number {
  return verdict.kind === 'scored' ? 1 + verdict.score : verdict.agreement;
}

function toCandidate(
  verdict: Verdict,
  thresholds: OutcomeThresholds,
  holderName: string,
  holderIndex: number,
): Candidate {
  if (verdict.kind === 'rejected') {
    return {
      outcome: 'NMTC',
      score: roundScore(noMatchScore(verdict.agreement, thresholds)),
      reasons: [verdict.reason],
      holderName,
      holderIndex,
    };
  }
  const outcome = outcomeFor(verdict.score, thresholds);
  const reasons =
    outcome === 'NMTC' && verdict.reasons.length === 0
      ? ['NAME_MISMATCH' as const]
      : verdict.reasons;
  return { outcome, score: roundScore(verdict.score), reasons, holderName, holderIndex };
}

/** Builds a matcher; the reference tables are indexed once here, so build one and reuse it. */
export function createNameMatcher(options: MatcherOptions = {}): NameMatcher {
  return new VopNameMatcher(options);
}
