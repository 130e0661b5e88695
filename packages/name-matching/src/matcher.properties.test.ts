import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createNameMatcher } from './matcher.js';
import { tokenise } from './text/tokenise.js';
import type { AccountHolder } from './types.js';

const matcher = createNameMatcher();
const GIVEN = [
  'Hans',
  'Jürgen',
  'Hélène',
  'François',
  'Giulia',
  'José',
  'Łukasz',
  'Søren',
  'Åsa',
  'Jiří',
  'Anna',
  'William',
  'Maria',
  'Mario',
  'Ștefan',
  'Ελένη',
  'Сергей',
];
const SURNAMES = [
  'Müller',
  'Lefèvre',
  'Rossi',
  'García',
  'Kowalski',
  'Østergaard',
  'Dvořák',
  'Smith',
  'de Vries',
  'Popescu',
  'Παπαδοπούλου',
  'Иванов',
  'Schmidt',
];
const ORGS = [
  'Müller Bau',
  'Société Générale',
  'Nordlicht Energie',
  'Bäckerei Schmidt',
  'Rossi Trasporti',
];
const FORMS = ['GmbH', 'AG', 'S.A.', 'Sp. z o.o.', 'Ltd', 'B.V.', ''];

const personName = fc
  .tuple(
    fc.constantFrom(...GIVEN),
    fc.option(fc.constantFrom(...GIVEN), { nil: undefined }),
    fc.constantFrom(...SURNAMES),
  )
  .map(([given, middle, surname]) => [given, middle, surname].filter(Boolean).join(' '));
const organisationName = fc
  .tuple(fc.constantFrom(...ORGS), fc.constantFrom(...FORMS))
  .map(([name, form]) => `${name} ${form}`.trim());
const anyName = fc.oneof(personName, organisationName);
const holder = fc
  .tuple(
    fc.constantFrom<'person' | 'organisation' | undefined>('person', 'organisation', undefined),
    fc.array(anyName, { minLength: 1, maxLength: 3 }),
  )
  .map(([holderType, names]): AccountHolder => (holderType ? { holderType, names } : { names }));

/** Changes that must never matter: case, accents, spacing, a final full stop, hyphens for spaces. */
const cosmetic = fc.constantFrom(
  (s: string) => s.toUpperCase(),
  (s: string) => s.toLowerCase(),
  (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, ''),
  (s: string) => `  ${s.replace(/ /g, '   ')} `,
  (s: string) => `${s}.`,
  (s: string) => s.normalize('NFD'),
);

describe('invariants (property-based)', () => {
  it('given any text, when normalised twice, then the second pass changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (raw) => {
        const once = tokenise(raw).tokens.map((t) => t.text);
        const twice = tokenise(once.join(' ')).tokens.map((t) => t.text);
        assert.deepEqual(twice, once);
      }),
      { numRuns: 500 },
    );
  });

  it('given any typed name and account, when the typed name changes only cosmetically, then the outcome stays', () => {
    fc.assert(
      fc.property(anyName, holder, cosmetic, (typed, account, change) => {
        assert.equal(
          matcher.match(change(typed), account).outcome,
          matcher.match(typed, account).outcome,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('given a typed name that does not match, when an unrelated word is added anywhere, then it never becomes MTCH', () => {
    const unrelated = fc.stringMatching(/^[QXZ][a-z]{3,8}$/);
    fc.assert(
      fc.property(anyName, holder, unrelated, fc.nat(), (typed, account, word, position) => {
        fc.pre(matcher.match(typed, account).outcome === 'NMTC');
        const words = typed.split(' ');
        words.splice(position % (words.length + 1), 0, word);
        assert.notEqual(matcher.match(words.join(' '), account).outcome, 'MTCH');
      }),
      { numRuns: 500 },
    );
  });

  it('given an account with several names, when the names are stored in another order, then the outcome stays', () => {
    fc.assert(
      fc.property(anyName, holder, fc.nat(), (typed, account, rotation) => {
        const names = account.names;
        const shift = rotation % names.length;
        const reordered: AccountHolder = {
          ...account,
          names: [...names.slice(shift), ...names.slice(0, shift)].reverse(),
        };
        // The declared holder type belongs to the primary name; keep the comparison about order alone.
        const undeclared = { names };
        const undeclaredReordered = { names: reordered.names };
        assert.equal(
          matcher.match(typed, undeclaredReordered).outcome,
          matcher.match(typed, undeclared).outcome,
        );
      }),
      { numRuns: 500 },
    );
  });
});
