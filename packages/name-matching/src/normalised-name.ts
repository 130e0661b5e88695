import { splitJointHolders, type GivenNames } from './joint-holders.js';
import type { LegalFormIndex, LegalFormMention } from './tables/legal-form-index.js';
import {
  CONNECTORS,
  GENERATION_MARKERS,
  LEADING_TITLES,
  ONE_LETTER_CONNECTORS,
  ORGANISATION_STOPWORDS,
  ORGANISATION_SYNONYMS,
  ORGANISATION_WORDS,
  TRAILING_TITLES,
} from './tables/lexicon.js';
import { joinTokens, makeToken, type Token } from './text/token.js';
import type { TokenisedName } from './text/tokenise.js';
import type { HolderType } from './types.js';

/** One person's name: titles dropped, "Surname, Given" turned round. */
export interface PersonName {
  readonly tokens: readonly Token[];
  readonly titleRemoved: boolean;
}

/** An organisation's name: its own words, and the legal forms found at either end. */
export interface OrganisationName {
  readonly core: readonly Token[];
  readonly legalForms: readonly LegalFormMention[];
}

/** A name folded and tokenised once; the person and organisation readings are built on first use. */
export class NormalisedName {
  private personsMemo: readonly PersonName[] | undefined;
  private organisationMemo: OrganisationName | undefined;

  constructor(
    readonly raw: string,
    readonly tokenised: TokenisedName,
    private readonly legalForms: LegalFormIndex,
    private readonly givenNames: GivenNames,
  ) {}

  get tokens(): readonly Token[] {
    return this.tokenised.tokens;
  }

  /** The people a name stands for: usually one; "John & Jane Smith" is two. */
  persons(): readonly PersonName[] {
    this.personsMemo ??= readPersons(this.tokenised, this.givenNames, () => this.hasLegalForm());
    return this.personsMemo;
  }

  organisation(): OrganisationName {
    this.organisationMemo ??= readOrganisation(this.tokenised.tokens, this.legalForms);
    return this.organisationMemo;
  }

  /** False when the name surely has no legal form (most persons' names): saves reading it as an organisation. */
  mayHaveLegalForm(): boolean {
    return this.organisationMemo
      ? this.organisationMemo.legalForms.length > 0
      : this.legalForms.mayHaveForm(this.tokens);
  }

  /** A legal form other than initials that may stand for given names (J.P. Martin, C.A. Souza). */
  hasLegalForm(): boolean {
    return this.mayHaveLegalForm() && this.organisation().legalForms.some((f) => !f.mayBeInitials);
  }

  /** Organisation when a legal form or an organisation word is present, else person. */
  inferHolderType(): HolderType {
    if (this.organisation().legalForms.length > 0) return 'organisation';
    return this.tokens.some((t) => ORGANISATION_WORDS.has(t.text)) ? 'organisation' : 'person';
  }
}

function readPersons(
  name: TokenisedName,
  givenNames: GivenNames,
  hasLegalForm: () => boolean,
): PersonName[] {
  let tokens = name.tokens;
  const commaAt = name.tokensBeforeComma;
  if (commaAt > 0 && commaAt < tokens.length) {
    const after = tokens.slice(commaAt);
    const isSuffixOnly = after.every(
      (t) => GENERATION_MARKERS.has(t.text) || TRAILING_TITLES.has(t.text),
    );
    if (!isSuffixOnly) tokens = [...after, ...tokens.slice(0, commaAt)];
  }
  const parts = splitJointHolders(tokens, name.dotted, givenNames);
  // "Mr & Mrs John Smith": a part that is only a form of address is no person of its own.
  const persons = parts
    .filter((p) => p.length > 0 && !p.every((t) => LEADING_TITLES.has(t.text)))
    .map(stripTitles);
  // "John & Jane Smith": a lone given name borrows the surname of the person after it.
  for (let i = 0; i < persons.length - 1; i++) {
    const next = persons[i + 1]!;
    if (persons[i]!.tokens.length === 1 && next.tokens.length >= 2) {
      persons[i] = {
        ...persons[i]!,
        tokens: [...persons[i]!.tokens, next.tokens[next.tokens.length - 1]!],
      };
    }
  }
  if (persons.length === 0) return [{ tokens: [], titleRemoved: false }];
  if (persons.length < 2) return persons;
  // A part still of one word ("Johnson & Johnson", "Marks and Spencer plc") is no person's full
  // name: matching it alone would match a surname alone. Such a name, or one with a legal form, is
  // one name.
  if (
    persons.some((p) => p.tokens.length < 2) ||
    (hasLegalForm() && !shareASurname(persons, givenNames))
  )
    return [stripTitles(parts.flat())];
  return persons;
}

/** "Ana Sá e João Sá": given names and one shared last word, a surname even if it reads as S.A. */
function shareASurname(persons: readonly PersonName[], givenNames: GivenNames): boolean {
  const surname = persons[0]!.tokens[persons[0]!.tokens.length - 1]!.text;
  return persons.every(
    (p) => p.tokens[p.tokens.length - 1]!.text === surname && givenNames.isGivenName(p.tokens[0]!),
  );
}

function stripTitles(tokens: Token[]): PersonName {
  let start = 0;
  let end = tokens.length;
  while (end - start > 1) {
    const word = tokens[start]!.text;
    if (LEADING_TITLES.has(word)) start++;
    else if (word === 'de' && tokens[start + 1]?.text === 'heer' && end - start > 2) start += 2;
    else break;
  }
  while (end - start > 1 && TRAILING_TITLES.has(tokens[end - 1]!.text)) end--;
  const titleRemoved = start > 0 || end < tokens.length;
  return { tokens: titleRemoved ? tokens.slice(start, end) : tokens, titleRemoved };
}

function readOrganisation(tokens: readonly Token[], legalForms: LegalFormIndex): OrganisationName {
  const { core, forms } = legalForms.split(tokens);
  const words: Token[] = [];
  let letters: Token[] = [];
  const flushLetters = (): void => {
    if (letters.length > 0) words.push(joinTokens(letters));
    letters = [];
  };
  for (let i = 0; i < core.length; i++) {
    const token = core[i]!;
    if (token.text === '&' || CONNECTORS.has(token.text)) continue;
    // "Pérez y Hijos", "Rossi e Figli": a one-letter conjunction between two words, not an initial.
    if (
      ONE_LETTER_CONNECTORS.has(token.text) &&
      letters.length === 0 &&
      i > 0 &&
      core[i - 1]!.text.length > 1 &&
      (core[i + 1]?.text.length ?? 0) > 1
    )
      continue;
    // Initialisms: "A.B.C.", "A B C" and "ABC" are one word.
    if (token.text.length === 1 && !/[0-9]/.test(token.text)) {
      letters.push(token);
      continue;
    }
    flushLetters();
    words.push(token);
  }
  flushLetters();
  const meaningful = words.filter((t) => !ORGANISATION_STOPWORDS.has(t.text));
  const kept = meaningful.length > 0 ? meaningful : words;
  const result: Token[] = [];
  for (const token of kept) {
    const synonym = ORGANISATION_SYNONYMS.get(token.text);
    if (synonym === undefined) result.push(token);
    else
      for (const word of synonym.split(' '))
        result.push(makeToken(word, word, token.transliterated));
  }
  return { core: result, legalForms: forms };
}
