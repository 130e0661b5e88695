import { compareOrganisations } from './compare/organisation-comparison.js';
import { comparePersons } from './compare/person-comparison.js';
import { TokenMatcher } from './compare/token-match.js';
import type { Verdict } from './compare/verdict.js';
import { NameNormaliser } from './name-normaliser.js';
import type { NormalisedName } from './normalised-name.js';
import { DEFAULT_THRESHOLDS, noMatchScore, OUTCOME_RANK, outcomeFor, roundScore } from './scoring.js';
import { LegalFormIndex } from './tables/legal-form-index.js';
import { NicknameIndex } from './tables/nickname-index.js';
import type {
  AccountHolder, HolderType, MatcherOptions, MatcherThresholds, MatchOutcome, MatchResult, NameMatcher, OutcomeThresholds,
  ReasonCode,
} from './types.js';

const DEFAULT_CACHE_SIZE = 20_000;

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

  constructor(options: MatcherOptions) {
    this.thresholds = {
      person: options.person ?? DEFAULT_THRESHOLDS.person,
      organisation: options.organisation ?? DEFAULT_THRESHOLDS.organisation,
    };
    validateThresholds(this.thresholds.person, 'person');
    validateThresholds(this.thresholds.organisation, 'organisation');
    this.normaliser = new NameNormaliser(new LegalFormIndex(), options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.tokens = new TokenMatcher(new NicknameIndex());
  }

  match(typedName: string, holder: AccountHolder): MatchResult {
    const typed = this.normaliser.normalise(typedName);
    let best: Candidate | undefined;
    holder.names.forEach((holderName, holderIndex) => {
      const normalisedHolder = this.normaliser.normalise(holderName);
      const holderType = this.holderTypeOf(normalisedHolder, holder.holderType, holderIndex);
      const candidate = this.judge(typed, normalisedHolder, holderType, holderIndex);
      if (better(candidate, best)) best = candidate;
    });
    if (!best) return { outcome: 'NMTC', score: 0, reasons: ['EMPTY_NAME'] };
    const reasons = [...best.reasons];
    if (best.outcome !== 'NMTC' && best.holderIndex > 0) reasons.push('ALTERNATE_NAME');
    if (best.outcome === 'MTCH' && reasons.length === 0 && typedName.trim() !== best.holderName.trim()) reasons.push('COSMETIC');
    const result: MatchResult = { outcome: best.outcome, score: best.score, reasons };
    if (best.outcome !== 'NMTC') result.matchedName = best.holderName;
    return result;
  }

  /** The account's holder type governs its primary name; other names may be trading names with a legal form. */
  private holderTypeOf(name: NormalisedName, declared: HolderType | undefined, index: number): HolderType {
    if (declared && index === 0) return declared;
    const inferred = name.inferHolderType();
    if (!declared) return inferred;
    return name.organisation().legalForms.length > 0 ? 'organisation' : declared;
  }

  private judge(typed: NormalisedName, holder: NormalisedName, holderType: HolderType, holderIndex: number): Candidate {
    const thresholds = this.thresholds[holderType];
    const verdict = holderType === 'person' ? this.judgePerson(typed, holder) : compareOrganisations(typed.organisation(), holder.organisation(), this.tokens);
    return toCandidate(verdict, thresholds, holder.raw, holderIndex);
  }

  private judgePerson(typed: NormalisedName, holder: NormalisedName): Verdict {
    const typedForms = typed.organisation().legalForms;
    if (typedForms.length > 0 && holder.organisation().legalForms.length === 0) {
      const holderWords = new Set(holder.tokens.map((t) => t.text));
      // A company's name typed for a private person's account; a surname such as Sá is no legal form.
      if (!typedForms.every((form) => holderWords.has(form.written))) {
        return { kind: 'rejected', reason: 'PERSON_VS_ORGANISATION', agreement: 0.5 };
      }
    }
    const typedPersons = typed.persons();
    const holderPersons = holder.persons();
    let worst: Verdict | undefined;
    let anyMatched = false;
    for (const typedPerson of typedPersons) {
      let bestForPerson: Verdict | undefined;
      for (const holderPerson of holderPersons) {
        const verdict = comparePersons(typedPerson, holderPerson, this.tokens);
        if (!bestForPerson || verdictScore(verdict) > verdictScore(bestForPerson)) bestForPerson = verdict;
      }
      if (bestForPerson!.kind === 'scored') anyMatched = true;
      if (!worst || verdictScore(bestForPerson!) < verdictScore(worst)) worst = bestForPerson;
    }
    // "Hans und Grete Müller" against Hans Müller's own account: the payee includes the holder.
    if (worst!.kind === 'rejected' && anyMatched && typedPersons.length > 1) {
      return { kind: 'scored', score: 0.75, reasons: ['EXTRA_NAME'] };
    }
    return worst!;
  }
}

function verdictScore(verdict: Verdict): number {
  return verdict.kind === 'scored' ? 1 + verdict.score : verdict.agreement;
}

function toCandidate(verdict: Verdict, thresholds: OutcomeThresholds, holderName: string, holderIndex: number): Candidate {
  if (verdict.kind === 'rejected') {
    return { outcome: 'NMTC', score: roundScore(noMatchScore(verdict.agreement, thresholds)), reasons: [verdict.reason], holderName, holderIndex };
  }
  const outcome = outcomeFor(verdict.score, thresholds);
  const reasons = outcome === 'NMTC' && verdict.reasons.length === 0 ? ['NAME_MISMATCH' as const] : verdict.reasons;
  return { outcome, score: roundScore(verdict.score), reasons, holderName, holderIndex };
}

/** Builds a matcher; the reference tables are indexed once here, so build one and reuse it. */
export function createNameMatcher(options: MatcherOptions = {}): NameMatcher {
  return new VopNameMatcher(options);
}
