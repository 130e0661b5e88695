export type HolderType = 'person' | 'organisation';

export interface AccountHolder {
  /** Inferred per name from a legal form (or organisation words) when absent. */
  holderType?: HolderType;
  /** Primary name first, then joint holders and trading names. */
  names: string[];
}

export type MatchOutcome = 'MTCH' | 'CMTC' | 'NMTC';

/**
 * Why the engine answered as it did. Codes that describe a tolerated difference come with MTCH or CMTC;
 * the last group explains an NMTC.
 */
export type ReasonCode =
  // differences that do not count: MTCH
  | 'COSMETIC' // case, accents, umlaut spelling, punctuation, spacing
  | 'TITLE_IGNORED' // Dr., Herr, Mme ... dropped
  | 'LEGAL_FORM_VARIANT' // the same legal form written out, dotted or abbreviated (Aktiengesellschaft = AG)
  | 'TRANSLITERATION' // Cyrillic/Greek against Latin, or a transliteration variant (Sergei / Sergey)
  | 'ALTERNATE_NAME' // matched a joint holder or trading name rather than the primary name
  // differences that make a close match: CMTC (unless thresholds say otherwise)
  | 'WORD_ORDER'
  | 'TYPO'
  | 'NICKNAME'
  | 'INITIALS'
  | 'MIDDLE_NAME_MISSING'
  | 'EXTRA_NAME' // the typed name has a name part the holder name lacks
  | 'LEGAL_FORM_MISSING'
  | 'LEGAL_FORM_ADDED' // the typed name has a legal form the holder name lacks
  | 'ACRONYM'
  | 'TRADE_NAME' // a sole trader's trade words (Malerbetrieb, Plumbing) or trading name on one side only
  | 'TRUNCATED_NAME' // the stored name is cut at 35/70/140 characters and the typed name runs on past it
  // reasons for NMTC
  | 'NAME_MISMATCH'
  | 'LEGAL_FORM_DIFFERENT'
  | 'SURNAME_ONLY'
  | 'INITIALS_ONLY'
  | 'PERSON_VS_ORGANISATION'
  | 'NUMBER_MISMATCH'
  | 'PERSON_MARKER' // a part that marks another person: Thị/Văn, -né, Filho/Jr., a compound given name halved
  | 'EMPTY_NAME';

export interface MatchResult {
  outcome: MatchOutcome;
  /** In [0, 1]; always inside the band of the outcome under the thresholds in force. */
  score: number;
  /** The holder name to disclose, on MTCH and CMTC. */
  matchedName?: string;
  reasons: ReasonCode[];
}

export interface NameMatcher {
  match(typedName: string, holder: AccountHolder): MatchResult;
}

export interface OutcomeThresholds {
  /** Score at or above which the answer is MTCH. */
  match: number;
  /** Score at or above which the answer is CMTC (below: NMTC). */
  closeMatch: number;
}

export interface MatcherThresholds {
  person: OutcomeThresholds;
  organisation: OutcomeThresholds;
}

export interface MatcherOptions extends Partial<MatcherThresholds> {
  /** Normalised holder names kept in a bounded LRU cache; 0 disables it. Default 20,000 names. */
  cacheSize?: number;
}
