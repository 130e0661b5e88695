import type { HolderType } from '@vop/contracts';

export interface AccountHolder {
  holderType?: HolderType;
  /** Primary name first, then joint holders and trading names. */
  names: string[];
}

export interface MatchResult {
  outcome: 'MTCH' | 'CMTC' | 'NMTC';
  score: number;
  matchedName?: string;
  reasons: string[];
}

/** The seam between the service and a name-matching engine. */
export interface NameMatcher {
  match(typedName: string, holder: AccountHolder): MatchResult;
}

const fold = (name: string): string =>
  name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** The simplest honest rule: equal after case, accents, punctuation and spacing are folded. */
export const exactFoldMatcher: NameMatcher = {
  match(typedName, holder) {
    const typed = fold(typedName);
    const matchedName = holder.names.find((name) => fold(name) === typed);
    return matchedName === undefined
      ? { outcome: 'NMTC', score: 0, reasons: [] }
      : { outcome: 'MTCH', score: 1, matchedName, reasons: typedName === matchedName ? ['EXACT'] : ['COSMETIC'] };
  },
};
