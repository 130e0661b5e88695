import { GIVEN_NAMES } from '../generated/given-names.js';
import { NICKNAME_GROUPS } from '../generated/nicknames.js';
import { ROMANISED_GIVEN_NAMES } from './romanised-given-names.js';
import { tokenise } from '../text/tokenise.js';
import type { Token } from '../text/token.js';

const NO_GROUPS: readonly number[] = [];

/**
 * Nickname relations (Bill / William, Sepp / Josef), one name's romanisations (Yuliya / Iuliia / Julija)
 * and the set of known given names.
 */
export class NicknameIndex {
  private readonly groupsByName = new Map<string, number[]>();
  private readonly romanisationByName = new Map<string, number>();
  private readonly givenNames = new Set<string>();

  constructor() {
    NICKNAME_GROUPS.forEach((group, groupId) => {
      for (const name of group) {
        const { tokens } = tokenise(name);
        if (tokens.length !== 1) continue;
        for (const spelling of new Set([tokens[0]!.text, tokens[0]!.alt])) {
          const groups = this.groupsByName.get(spelling) ?? [];
          if (!groups.includes(groupId)) groups.push(groupId);
          this.groupsByName.set(spelling, groups);
          this.givenNames.add(spelling);
        }
      }
    });
    ROMANISED_GIVEN_NAMES.forEach((group, groupId) => {
      for (const name of group) {
        for (const token of tokenise(name).tokens) {
          for (const spelling of [token.text, token.alt]) {
            this.romanisationByName.set(spelling, groupId);
            this.givenNames.add(spelling);
          }
        }
      }
    });
    for (const name of GIVEN_NAMES) {
      for (const token of tokenise(name).tokens) {
        this.givenNames.add(token.text);
        this.givenNames.add(token.alt);
      }
    }
  }

  private groupsOf(token: Token): readonly number[] {
    return this.groupsByName.get(token.text) ?? this.groupsByName.get(token.alt) ?? NO_GROUPS;
  }

  related(a: Token, b: Token): boolean {
    const groupsA = this.groupsOf(a);
    if (groupsA.length === 0) return false;
    const groupsB = this.groupsOf(b);
    for (const group of groupsB) if (groupsA.includes(group)) return true;
    return false;
  }

  /** Two romanisations of one Cyrillic, Greek or Arabic given name (Sergei / Serhii, Chalid / Khalid). */
  sameRomanisedName(a: Token, b: Token): boolean {
    const group = this.romanisationByName.get(a.text) ?? this.romanisationByName.get(a.alt);
    if (group === undefined) return false;
    return (this.romanisationByName.get(b.text) ?? this.romanisationByName.get(b.alt)) === group;
  }

  isGivenName(token: Token): boolean {
    return this.givenNames.has(token.text) || this.givenNames.has(token.alt);
  }
}
