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
}

describe('names that mark another person', () => {
  it('given Nguyễn Văn Lan, when Nguyen Thi Lan is typed, then NMTC (gender middle names)', () => {
    expectOutcome('Nguyen Thi Lan', person('Nguyễn Văn Lan'), 'NMTC', 'PERSON_MARKER');
  });
  it('given Kovács János, when his wife Kovács Jánosné is typed, then NMTC, and the same form matches', () => {
    expectOutcome('Kovács Jánosné', person('Kovács János'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('Kovacsne Szabo Anna', person('Kovács Anna'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('Kovacs Janosne', person('Kovács Jánosné'), 'MTCH');
  });
  it('given João Silva, when João Silva Filho or Neto is typed, then NMTC either way', () => {
    expectOutcome('João Silva Filho', person('João Silva'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('João Silva', person('João Silva Neto'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('John Smith Jr.', person('John Smith'), 'NMTC', 'PERSON_MARKER');
  });
  it('given Kim Jun-min, when Kim Min-jun is typed, then NMTC; the family name moved is a close match', () => {
    expectOutcome('Kim Min-jun', person('Kim Jun-min'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('Min-jun Kim', person('Kim Min-jun'), 'CMTC', 'WORD_ORDER');
    expectOutcome('Kim Minjun', person('Kim Min-jun'), 'MTCH');
    expectOutcome('Kim Min Jun', person('Kim Min-jun'), 'MTCH');
  });
  it('given María José García, when one half of the compound given name is typed, then NMTC', () => {
    expectOutcome('José García', person('María José García'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('María García', person('María José García'), 'NMTC', 'PERSON_MARKER');
    expectOutcome('Pierre Moreau', person('Jean-Pierre Moreau'), 'NMTC', 'PERSON_MARKER');
  });
  it('given two known given names one letter apart, then NMTC, not a typo', () => {
    expectOutcome('Sara Rossi', person('Zara Rossi'), 'NMTC');
    expectOutcome('Emil Berg', person('Emin Berg'), 'NMTC');
    expectOutcome('Ilka Virtanen', person('Ilkka Virtanen'), 'NMTC');
    expectOutcome('Katalin Pop', person('Cătălin Pop'), 'NMTC');
  });
});

describe('truncated stored names', () => {
  const full = 'Bäckerei und Konditorei Schmidt-Hoffmann GmbH & Co. KG';
  it('given a stored name cut at 35 characters inside a word, when the full name is typed, then CMTC', () => {
    expectOutcome(full, organisation(full.slice(0, 35)), 'CMTC', 'TRUNCATED_NAME');
  });
  it('given a stored name cut at 35 characters between two words, then MTCH', () => {
    const cut = 'Hans Müller Sanitär und Heizungsbau';
    assert.equal(cut.length, 35);
    expectOutcome(`${cut} Meisterbetrieb GmbH`, organisation(cut), 'MTCH', 'TRUNCATED_NAME');
  });
  it('given a stored name of 34 characters, then no cut is assumed: NMTC', () => {
    const stored = 'Hans Müller Sanitär und Heizungsba';
    expectOutcome(`${stored}u Meisterbetrieb GmbH`, organisation(stored), 'NMTC');
  });
  it('given a private account whose name is cut, when a company name that starts with it is typed, then NMTC', () => {
    const cut = 'Maximilian Alexander Friedrich von ';
    expectOutcome(`${cut}Hohenberg`, person(cut), 'MTCH', 'TRUNCATED_NAME');
    expectOutcome(`${cut}Hohenberg GmbH`, person(cut), 'NMTC');
    expectOutcome(`${cut}Hohenberg Jr.`, person(cut), 'NMTC');
  });
  it('given a cut stored name, when the typed name departs inside the prefix, then NMTC', () => {
    expectOutcome('Bäckerei und Konditorei Weber GmbH', organisation(full.slice(0, 35)), 'NMTC');
  });
});

describe('sole traders', () => {
  it('given Hans Müller, when his name with a trade word is typed, then CMTC', () => {
    expectOutcome('Hans Müller Malerbetrieb', person('Hans Müller'), 'CMTC', 'TRADE_NAME');
    expectOutcome('Boulangerie Jean Dupont', person('Jean Dupont'), 'CMTC', 'TRADE_NAME');
  });
  it('given the business "Hans Müller Malerbetrieb" without a legal form, when the owner is typed, then CMTC', () => {
    expectOutcome('Hans Müller', organisation('Hans Müller Malerbetrieb'), 'CMTC', 'TRADE_NAME');
  });
  it('given two trades or a limited company, then NMTC', () => {
    expectOutcome('Hans Müller Dachdeckerei', organisation('Hans Müller Malerbetrieb'), 'NMTC');
    expectOutcome('Hans Müller', organisation('Hans Müller GmbH'), 'NMTC');
    expectOutcome('Peter Müller Malerbetrieb', person('Hans Müller'), 'NMTC');
  });
  it('given "trading as" or "Inh." forms, then each part is the holder', () => {
    expectOutcome(
      'John Smith trading as Smith Plumbing',
      person('John Smith'),
      'CMTC',
      'TRADE_NAME',
    );
    expectOutcome('Anna Schmidt', organisation('Blumen Schmidt Inh. Anna Schmidt'), 'MTCH');
  });
});

describe('business name variants', () => {
  it('given a one-letter conjunction (y, e, i) against &, then MTCH', () => {
    expectOutcome('Pérez e Hijos SL', organisation('Pérez y Hijos SL'), 'MTCH');
    expectOutcome('Rossi e Figli S.r.l.', organisation('Rossi & Figli Srl'), 'MTCH');
  });
  it('given Gruppe against Group, and Co. Ltd against Company Ltd, then MTCH', () => {
    expectOutcome('Schwarz Group GmbH', organisation('Schwarz Gruppe GmbH'), 'MTCH');
    expectOutcome('Acme Co. Ltd', organisation('Acme Company Ltd'), 'MTCH', 'LEGAL_FORM_VARIANT');
  });
  it('given a holding company against the company, then NMTC still', () => {
    expectOutcome('Acme Holding Ltd', organisation('Acme Ltd'), 'NMTC');
  });
});

describe('noise', () => {
  it('given a Latin name, when a Cyrillic look-alike letter is typed inside it, then MTCH (cosmetic)', () => {
    expectOutcome('H\u0430ns Müller', person('Hans Müller'), 'MTCH', 'COSMETIC');
    expectOutcome('\u0405ofia Rossi', person('Sofia Rossi'), 'MTCH', 'COSMETIC');
  });
});

describe('romanisation standards', () => {
  it('given one Cyrillic, Greek or Arabic given name by two standards, then CMTC', () => {
    expectOutcome('Serhii Shevchenko', person('Sergei Shevchenko'), 'CMTC', 'TRANSLITERATION');
    expectOutcome('Xalid Mansur', person('Khalid Mansour'), 'CMTC', 'TRANSLITERATION');
    expectOutcome(
      'Georgios Papadopoulos',
      person('Yorgos Papadopoulos'),
      'CMTC',
      'TRANSLITERATION',
    );
  });
  it('given a surname by the French or Dutch convention, then CMTC', () => {
    expectOutcome('Aleksandr Joukov', person('Aleksandr Zhukov'), 'CMTC', 'TRANSLITERATION');
    expectOutcome('Aleksandr Zjoekov', person('Aleksandr Zhukov'), 'CMTC', 'TRANSLITERATION');
  });
  it('given ISO 9 spellings with diacritics, then they are read as ISO 9', () => {
    expectOutcome('Ûlìâ Kovalenko', person('Yuliia Kovalenko'), 'CMTC', 'TRANSLITERATION');
    expectOutcome('Natalʹâ Smirnova', person('Наталья Смирнова'), 'MTCH', 'TRANSLITERATION');
    expectOutcome('Ângela Popescu', person('Angela Popescu'), 'MTCH', 'COSMETIC');
  });
  it('given Greek ELOT 743 against the phonetic spelling, and the Arabic article as al or el, then CMTC', () => {
    expectOutcome('Georgios Vasileiou', person('Georgios Vassiliou'), 'CMTC', 'TRANSLITERATION');
    expectOutcome('Khalid El-Rachid', person('Khalid Al-Rashid'), 'CMTC', 'TRANSLITERATION');
    expectOutcome('Anna Laine', person('Anna Lene'), 'NMTC');
  });
  it('given Igor and Egor, two names, then NMTC', () => {
    expectOutcome('Igor Ivanov', person('Egor Ivanov'), 'NMTC');
  });
});
