import { LEGAL_FORMS } from '../generated/legal-forms.js';
import { tokenise } from '../text/tokenise.js';
import { LEADING_TITLES, TRAILING_TITLES } from './lexicon.js';
import type { Token } from '../text/token.js';

/** A legal form found in a name. */
export interface LegalFormMention {
  /** Identity of the form: Aktiengesellschaft, AG and A.G. share one key. */
  readonly key: string;
  /** The words as written, squeezed (aktiengesellschaft, ag): tells a written-out form from an abbreviation. */
  readonly written: string;
  /** OpenSanctions generic class (LLC, JSC, SP for a sole proprietor, ...) when known. */
  readonly generic: string | null;
  /** At the start, written as single letters or a run of consonants (J.P., JP): maybe initials. */
  readonly mayBeInitials: boolean;
}

interface IndexedForm {
  readonly key: string;
  readonly prefix: boolean;
  readonly generic: string | null;
}

export interface LegalFormSplit {
  readonly core: readonly Token[];
  readonly forms: readonly LegalFormMention[];
}

const MAX_FORMS_AT_END = 3;

/** Two neighbouring single letters belong to one initialism (A.B.C.): no legal form boundary between them. */
function splitsInitialism(tokens: readonly Token[], left: number, right: number): boolean {
  return tokens[left]?.text.length === 1 && tokens[right]?.text.length === 1;
}
const MAX_FORMS_AT_START = 2;

const CONSONANTS_ONLY = /^[bcdfghjklmnpqrstvwxz]{2,3}$/;
function writtenAsInitials(tokens: readonly Token[], from: number, to: number): boolean {
  if (to - from === 1) {
    const text = tokens[from]!.text;
    return text.length === 1 || CONSONANTS_ONLY.test(text);
  }
  for (let i = from; i < to; i++) if (tokens[i]!.text.length !== 1) return false;
  return true;
}

/** Legal forms recognised as whole words at either end of a name, from the generated tables. */
export class LegalFormIndex {
  private readonly bySequence = new Map<string, IndexedForm>();
  /** Words that can end (or start) a legal form: most names are turned away by one set lookup. */
  private readonly lastWords = new Set<string>();
  private readonly firstWords = new Set<string>();
  private maxTokens = 1;

  constructor() {
    for (const form of LEGAL_FORMS) {
      const entry: IndexedForm = { key: form.key, prefix: form.prefix, generic: form.generic };
      for (const alias of form.aliases) {
        const { tokens } = tokenise(alias);
        if (tokens.length === 0) continue;
        this.maxTokens = Math.max(this.maxTokens, tokens.length);
        const squeezed = tokens.map((t) => t.text).join('');
        this.firstWords.add(tokens[0]!.text).add(tokens[0]!.alt).add(squeezed);
        this.lastWords
          .add(tokens[tokens.length - 1]!.text)
          .add(tokens[tokens.length - 1]!.alt)
          .add(squeezed);
        this.add(tokens.map((t) => t.text).join(' '), entry);
        this.add(tokens.map((t) => t.alt).join(' '), entry);
        this.add(tokens.map((t) => t.text).join(''), entry);
      }
    }
  }

  private add(sequence: string, entry: IndexedForm): void {
    if (!this.bySequence.has(sequence)) this.bySequence.set(sequence, entry);
  }

  /** Cheap test: could the name start or end with a legal form at all? */
  mayHaveForm(tokens: readonly Token[]): boolean {
    return (
      tokens.length > 1 &&
      (this.mayEndForm(tokens[tokens.length - 1]!) || this.mayStartForm(tokens[0]!))
    );
  }

  // A single letter may end a form written with dots (G.m.b.H.).
  private mayEndForm(token: Token): boolean {
    return (
      token.text.length === 1 || this.lastWords.has(token.text) || this.lastWords.has(token.alt)
    );
  }

  private mayStartForm(token: Token): boolean {
    return (
      token.text.length === 1 || this.firstWords.has(token.text) || this.firstWords.has(token.alt)
    );
  }

  private lookup(tokens: readonly Token[], from: number, to: number): IndexedForm | undefined {
    const first = tokens[from]!;
    if (
      to - from > 1 &&
      first.text.length > 1 &&
      !this.firstWords.has(first.text) &&
      !this.firstWords.has(first.alt)
    )
      return undefined;
    let spaced = tokens[from]!.text;
    let spacedAlt = tokens[from]!.alt;
    let squeezed = spaced;
    for (let i = from + 1; i < to; i++) {
      spaced += ' ' + tokens[i]!.text;
      spacedAlt += ' ' + tokens[i]!.alt;
      squeezed += tokens[i]!.text;
    }
    return (
      this.bySequence.get(spaced) ?? this.bySequence.get(spacedAlt) ?? this.bySequence.get(squeezed)
    );
  }

  private static written(tokens: readonly Token[], from: number, to: number): string {
    let squeezed = '';
    for (let i = from; i < to; i++) squeezed += tokens[i]!.text;
    return squeezed;
  }

  /** Splits legal forms off both ends of a name, always leaving at least one word of the name itself. */
  split(tokens: readonly Token[]): LegalFormSplit {
    let start = 0;
    let end = tokens.length;
    const atEnd: LegalFormMention[] = [];
    const atStart: LegalFormMention[] = [];
    while (
      atEnd.length < MAX_FORMS_AT_END &&
      end - start > 1 &&
      this.mayEndForm(tokens[end - 1]!)
    ) {
      let found = false;
      for (let size = Math.min(this.maxTokens, end - start - 1); size >= 1; size--) {
        if (splitsInitialism(tokens, end - size - 1, end - size)) continue;
        const form = this.lookup(tokens, end - size, end);
        const written = form ? LegalFormIndex.written(tokens, end - size, end) : '';
        // "John Smith MD": post-nominal letters are no legal form.
        if (form && !TRAILING_TITLES.has(written)) {
          atEnd.unshift({ key: form.key, written, generic: form.generic, mayBeInitials: false });
          end -= size;
          found = true;
          break;
        }
      }
      if (!found) break;
    }
    while (
      atStart.length < MAX_FORMS_AT_START &&
      end - start > 1 &&
      this.mayStartForm(tokens[start]!)
    ) {
      let found = false;
      for (let size = Math.min(this.maxTokens, end - start - 1); size >= 1; size--) {
        if (splitsInitialism(tokens, start + size - 1, start + size)) continue;
        const form = this.lookup(tokens, start, start + size);
        const written = form ? LegalFormIndex.written(tokens, start, start + size) : '';
        // "Ms Jane Doe", "Avv. Mario Rossi": a form of address is no legal form.
        if (form?.prefix && !LEADING_TITLES.has(written)) {
          atStart.push({
            key: form.key,
            written,
            generic: form.generic,
            mayBeInitials: writtenAsInitials(tokens, start, start + size),
          });
          start += size;
          found = true;
          break;
        }
      }
      if (!found) break;
    }
    if (atEnd.length === 0 && atStart.length === 0) return { core: tokens, forms: [] };
    return { core: tokens.slice(start, end), forms: [...atStart, ...atEnd] };
  }
}
