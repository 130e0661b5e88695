import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createNameMatcher } from './matcher.js';
import type { AccountHolder, MatchOutcome, ReasonCode } from './types.js';

const matcher = createNameMatcher();
const person = (...names: string[]): AccountHolder => ({ holderType: 'person', names });
const organisation = (...names: string[]): AccountHolder => ({ holderType: 'organisation', names });

function expectOutcome(
  typed: string,
  holder: AccountHolder,
  outcome: MatchOutcome,
  reason?: ReasonCode,
): void {
  const result = matcher.match(typed, holder);
  assert.equal(
    result.outcome,
    outcome,
    `${typed} against ${holder.names.join(' | ')}: ${JSON.stringify(result)}`,
  );
  if (reason)
    assert.ok(
      result.reasons.includes(reason),
      `expected reason ${reason}, got ${result.reasons.join(', ')}`,
    );
  if (outcome === 'NMTC') assert.equal(result.matchedName, undefined);
  else
    assert.ok(
      holder.names.includes(result.matchedName ?? ''),
      'a match discloses one of the holder names',
    );
}

describe('cosmetic differences', () => {
  it('given a holder "Hans Müller", when the typed name differs only in case, then MTCH', () => {
    expectOutcome('HANS MÜLLER', person('Hans Müller'), 'MTCH', 'COSMETIC');
  });
  it('given a holder "Hélène Lefèvre", when the typed name drops the accents, then MTCH', () => {
    expectOutcome('Helene Lefevre', person('Hélène Lefèvre'), 'MTCH');
  });
  it('given a holder "Jürgen Müller", when ü is written ue or u, then MTCH both ways', () => {
    expectOutcome('Juergen Mueller', person('Jürgen Müller'), 'MTCH');
    expectOutcome('Jurgen Muller', person('Jürgen Müller'), 'MTCH');
    expectOutcome('Jürgen Müller', person('Juergen Mueller'), 'MTCH');
  });
  it('given holders with ß and ø, when written ss and oe, then MTCH', () => {
    expectOutcome('Strauss Bau GmbH', organisation('Strauß Bau GmbH'), 'MTCH');
    expectOutcome('Soeren Oestergaard', person('Søren Østergaard'), 'MTCH');
  });
  it('given a holder "Anne-Marie Dupont", when punctuation and spacing differ, then MTCH', () => {
    expectOutcome('  anne marie   DUPONT. ', person('Anne-Marie Dupont'), 'MTCH');
    expectOutcome('Dupont, Anne-Marie', person('Anne-Marie Dupont'), 'MTCH');
    expectOutcome('Jan Vandenberg', person('Jan van den Berg'), 'MTCH');
  });
  it('given a holder "Anna Schulz", when the typed name carries titles, then MTCH with TITLE_IGNORED', () => {
    expectOutcome('Frau Dr. med. Anna Schulz', person('Anna Schulz'), 'MTCH', 'TITLE_IGNORED');
  });
  it('given a holder "Siemens AG", when the legal form is written out or dotted, then MTCH with LEGAL_FORM_VARIANT', () => {
    expectOutcome(
      'Siemens Aktiengesellschaft',
      organisation('Siemens AG'),
      'MTCH',
      'LEGAL_FORM_VARIANT',
    );
    expectOutcome(
      'Lloyds Banking Group Public Limited Company',
      organisation('Lloyds Banking Group plc'),
      'MTCH',
    );
    expectOutcome('Volkswagen Bank G.m.b.H.', organisation('Volkswagen Bank GmbH'), 'MTCH');
  });
});

describe('close matches', () => {
  it('given a person holder, when given name and surname are swapped, then CMTC with WORD_ORDER', () => {
    expectOutcome('Müller Hans', person('Hans Müller'), 'CMTC', 'WORD_ORDER');
  });
  it('given a holder "Christoph Schneider", when one letter is mistyped, then CMTC with TYPO', () => {
    expectOutcome('Christoph Schnieder', person('Christoph Schneider'), 'CMTC', 'TYPO');
    expectOutcome('Christoph Schneidr', person('Christoph Schneider'), 'CMTC', 'TYPO');
  });
  it('given a holder "William Gates", when a nickname is typed, then CMTC with NICKNAME', () => {
    expectOutcome('Bill Gates', person('William Gates'), 'CMTC', 'NICKNAME');
    expectOutcome('Sepp Maier', person('Josef Maier'), 'CMTC', 'NICKNAME');
  });
  it('given a holder "Hans Peter Müller", when initials are typed, then CMTC with INITIALS', () => {
    expectOutcome('H. P. Müller', person('Hans Peter Müller'), 'CMTC', 'INITIALS');
    expectOutcome('H. Müller', person('Hans Müller'), 'CMTC', 'INITIALS');
  });
  it('given a holder with a middle name, when it is left out, then CMTC with MIDDLE_NAME_MISSING', () => {
    expectOutcome('John Smith', person('John Paul Smith'), 'CMTC', 'MIDDLE_NAME_MISSING');
  });
  it('given a holder "Deutsche Bank AG", when the legal form is left out, then CMTC with LEGAL_FORM_MISSING', () => {
    expectOutcome('Deutsche Bank', organisation('Deutsche Bank AG'), 'CMTC', 'LEGAL_FORM_MISSING');
  });
  it('given any close match, then the holder name to disclose is the stored one', () => {
    assert.equal(matcher.match('Bill Gates', person('William Gates')).matchedName, 'William Gates');
  });
});

describe('no matches', () => {
  it('given a holder "Hans Müller", when another person is typed, then NMTC', () => {
    expectOutcome('Peter Schmidt', person('Hans Müller'), 'NMTC', 'NAME_MISMATCH');
  });
  it('given a holder, when only the surname matches, then NMTC with SURNAME_ONLY', () => {
    expectOutcome('Müller', person('Hans Müller'), 'NMTC', 'SURNAME_ONLY');
  });
  it('given a holder, when a lone initial is typed, then never MTCH', () => {
    expectOutcome('H.', person('Hans Müller'), 'NMTC');
    expectOutcome('K. Müller', person('Hans Müller'), 'NMTC');
  });
  it('given a holder with the same surname, when another given name is typed, then NMTC', () => {
    expectOutcome('Anders Kristersson', person('Ulf Kristersson'), 'NMTC');
    expectOutcome('Maria Rossi', person('Mario Rossi'), 'NMTC');
    expectOutcome('Jan Novák', person('Jana Nováková'), 'NMTC');
  });
  it('given "Deutsche Bank AG", when the sister entity "Deutsche Bank GmbH" is typed, then NMTC with LEGAL_FORM_DIFFERENT', () => {
    expectOutcome(
      'Deutsche Bank GmbH',
      organisation('Deutsche Bank AG'),
      'NMTC',
      'LEGAL_FORM_DIFFERENT',
    );
  });
  it('given a company, when a sister company with another word is typed, then NMTC', () => {
    expectOutcome('Banco Santander México S.A.', organisation('Banco Santander S.A.'), 'NMTC');
    expectOutcome('Bowne of Boston, Inc.', organisation('Bowne of Atlanta, Inc.'), 'NMTC');
  });
  it("given a person, when their company's name is typed, then NMTC; and the other way round never MTCH", () => {
    expectOutcome('Hans Müller GmbH', person('Hans Müller'), 'NMTC', 'PERSON_VS_ORGANISATION');
    assert.notEqual(
      matcher.match('Robert Bosch', organisation('Robert Bosch GmbH')).outcome,
      'MTCH',
    );
  });
  it('given a fund, when another series number is typed, then NMTC with NUMBER_MISMATCH', () => {
    expectOutcome(
      'Carlyle Partners VII L.P.',
      organisation('Carlyle Partners VIII L.P.'),
      'NMTC',
      'NUMBER_MISMATCH',
    );
  });
  it('given an empty typed name, then NMTC with EMPTY_NAME', () => {
    expectOutcome('  ', person('Hans Müller'), 'NMTC', 'EMPTY_NAME');
  });
});

describe('several names per account', () => {
  it('given a joint account, when either holder is typed, then MTCH with that holder disclosed', () => {
    const holder = person('John Smith', 'Jane Smith');
    expectOutcome('John Smith', holder, 'MTCH');
    const result = matcher.match('Jane Smith', holder);
    assert.equal(result.matchedName, 'Jane Smith');
    assert.ok(result.reasons.includes('ALTERNATE_NAME'));
  });
  it('given joint holders in one stored name, when one of them is typed, then MTCH', () => {
    expectOutcome('Grete Müller', person('Hans & Grete Müller'), 'MTCH');
    expectOutcome('Hans und Grete Müller', person('Hans Müller', 'Grete Müller'), 'MTCH');
  });
  it('given an account with a trading name, when the trading name is typed, then MTCH', () => {
    expectOutcome('Kaffeehaus Müller', person('Josef Müller', 'Kaffeehaus Müller'), 'MTCH');
    expectOutcome('Bäckerei Müller', person('Hans Müller t/a Bäckerei Müller'), 'MTCH');
  });
});

describe('transliteration', () => {
  it('given a Cyrillic holder name, when its Latin transliteration is typed, then MTCH with TRANSLITERATION', () => {
    expectOutcome('Sergey Lavrov', person('Сергей Лавров'), 'MTCH', 'TRANSLITERATION');
    expectOutcome('Wolodymyr Selenskyj', person('Володимир Зеленський'), 'MTCH');
    expectOutcome('Georgi Ivanov', person('Георги Иванов'), 'MTCH');
  });
  it('given a Greek holder name, when its Latin transliteration is typed, then MTCH', () => {
    expectOutcome('Kyriakos Mitsotakis', person('Κυριάκος Μητσοτάκης'), 'MTCH', 'TRANSLITERATION');
    expectOutcome('Eleftherios Venizelos', person('Ελευθέριος Βενιζέλος'), 'MTCH');
  });
  it('given a Cyrillic holder name, when a different Latin name is typed, then NMTC', () => {
    expectOutcome('Sergey Ivanova', person('Сергей Иванов'), 'NMTC');
  });
});

describe('thresholds per holder type', () => {
  it('given a lower person match threshold, when the word order differs, then MTCH for persons only', () => {
    const lenient = createNameMatcher({ person: { match: 0.8, closeMatch: 0.6 } });
    assert.equal(lenient.match('Müller Hans', person('Hans Müller')).outcome, 'MTCH');
    assert.equal(lenient.match('Bau Müller GmbH', organisation('Müller Bau GmbH')).outcome, 'CMTC');
  });
  it('given thresholds out of order, then the matcher refuses them', () => {
    assert.throws(
      () => createNameMatcher({ organisation: { match: 0.5, closeMatch: 0.8 } }),
      RangeError,
    );
  });
  it('given any answer, then the score lies in [0, 1] and inside the band of the outcome', () => {
    for (const [typed, holder] of [
      ['Hans Müller', 'Hans Müller'],
      ['Müller Hans', 'Hans Müller'],
      ['Peter Schmidt', 'Hans Müller'],
    ] as const) {
      const { outcome, score } = matcher.match(typed, person(holder));
      assert.ok(score >= 0 && score <= 1);
      if (outcome === 'MTCH') assert.ok(score >= 0.9);
      if (outcome === 'CMTC') assert.ok(score >= 0.7 && score < 0.9);
      if (outcome === 'NMTC') assert.ok(score < 0.7);
    }
  });
  it('given no holder type, when the name carries a legal form, then it is compared as an organisation', () => {
    const result = matcher.match('Siemens', { names: ['Siemens AG'] });
    assert.equal(result.outcome, 'CMTC');
    assert.ok(result.reasons.includes('LEGAL_FORM_MISSING'));
  });
});

describe('joint holders joined by a conjunction of any EU language', () => {
  const joint: [string, string][] = [
    ['Jan Kowalski', 'Anna Kowalska i Jan Kowalski'],
    ['Marie Dupont', 'Jean Dupont et Marie Dupont'],
    ['Hans Mustermann', 'Erika und Hans Mustermann'],
    ['Erika Mustermann', 'Erika und Hans Mustermann'],
    ['Juan García', 'María López y Juan García'],
    ['Marco Rossi', 'Giulia Bianchi e Marco Rossi'],
    ['Petr Novák', 'Jana Nováková a Petr Novák'],
    ['Matti Virtanen', 'Liisa Virtanen ja Matti Virtanen'],
    ['Nagy Péter', 'Nagy Anna és Nagy Péter'],
    ['Ion Popescu', 'Maria Popescu și Ion Popescu'],
    ['Janez Novak', 'Marija Novak in Janez Novak'],
    ['Jānis Bērziņš', 'Anna Bērziņa un Jānis Bērziņš'],
    ['Jonas Kazlauskas', 'Ona Kazlauskienė ir Jonas Kazlauskas'],
    ['Nikos Papadopoulos', 'Maria Papadopoulou και Nikos Papadopoulos'],
    ['Иван Петров', 'Мария Петрова и Иван Петров'],
    ['Hans Müller', 'Grete Müller+Hans Müller'],
    ['Kowalski Jan', 'KOWALSKA ANNA I KOWALSKI JAN'],
    ['João Sá', 'Ana Sá e João Sá'],
  ];
  for (const [typed, holder] of joint) {
    it(`given a holder "${holder}", when "${typed}" is typed, then MTCH`, () => {
      expectOutcome(typed, person(holder), 'MTCH');
    });
  }
  it('given a joint holder string, when a surname alone is typed, then NMTC', () => {
    expectOutcome('Kowalski', person('Anna Kowalska i Jan Kowalski'), 'NMTC');
    expectOutcome('López', person('María López y Juan García'), 'NMTC');
    expectOutcome('Johnson', { names: ['Johnson & Johnson'] }, 'NMTC');
  });
  it('given a joint holder string, when another person of the family is typed, then NMTC', () => {
    expectOutcome('Piotr Kowalski', person('Anna Kowalska i Jan Kowalski'), 'NMTC');
  });
  it('given a middle initial like a conjunction, when the name without it is typed, CMTC', () => {
    expectOutcome('Jan Kowalski', person('Jan A. Kowalski'), 'CMTC', 'MIDDLE_NAME_MISSING');
    expectOutcome('Maria Rossi', person('Maria E Rossi'), 'CMTC', 'MIDDLE_NAME_MISSING');
    expectOutcome('Rossi Bianchi', person('Anna Maria E Rossi Bianchi'), 'NMTC');
  });
  it('given an organisation with & or "and", when one of its words is typed, then NMTC', () => {
    expectOutcome('Procter', organisation('Procter & Gamble'), 'NMTC');
    expectOutcome('Gamble', person('Procter & Gamble'), 'NMTC');
    expectOutcome('Spencer plc', organisation('Marks and Spencer plc'), 'NMTC');
    expectOutcome('Hans Müller', person('Hans Müller & Co KG'), 'NMTC');
  });
});

describe('compound initials', () => {
  it('given "Jean-Pierre Martin", when J.-P., J.P. or JP is typed, then CMTC (INITIALS)', () => {
    for (const typed of ['J.-P. Martin', 'J.P. Martin', 'JP Martin'])
      expectOutcome(typed, person('Jean-Pierre Martin'), 'CMTC', 'INITIALS');
  });
  it('given "Carlos Alberto Souza", when C. A. or C.A. is typed, then CMTC (INITIALS)', () => {
    expectOutcome('C. A. Souza', person('Carlos Alberto Souza'), 'CMTC', 'INITIALS');
    expectOutcome('C.A. Souza', person('Carlos Alberto Souza'), 'CMTC', 'INITIALS');
  });
  it('given compound initials of other given names, then NMTC', () => {
    expectOutcome('J.-M. Martin', person('Jean-Pierre Martin'), 'NMTC');
    expectOutcome('J.P. Martin', person('Pierre Martin'), 'NMTC');
  });
});

describe('one-letter forms of address', () => {
  it('given "Jean Dupont", when "M. Jean Dupont" is typed, then MTCH (TITLE_IGNORED)', () => {
    expectOutcome('M. Jean Dupont', person('Jean Dupont'), 'MTCH', 'TITLE_IGNORED');
    expectOutcome('P. Jan Kowalski', person('Jan Kowalski'), 'MTCH', 'TITLE_IGNORED');
    expectOutcome('G. Janez Novak', person('Janez Novak'), 'MTCH', 'TITLE_IGNORED');
  });
  it('given "Jean Dupont", when an initial and the surname are typed, then as before', () => {
    expectOutcome('J. Dupont', person('Jean Dupont'), 'CMTC', 'INITIALS');
    expectOutcome('M. Dupont', person('Jean Dupont'), 'NMTC');
  });
  it('given a holder "Marie Dupont", when "M. Jean Dupont" is typed, then NMTC', () => {
    expectOutcome('M. Jean Dupont', person('Marie Dupont'), 'NMTC');
  });
  it('given a letter that is no form of address before the full name, then NMTC', () => {
    expectOutcome('S. Sergio Rossi', person('Sergio Rossi'), 'NMTC');
  });
});
