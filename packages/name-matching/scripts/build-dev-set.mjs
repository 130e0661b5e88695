#!/usr/bin/env node
// Builds eval/vop-dev-set.csv, the VoP-labelled development set, from two sources, without using the engine:
//  1. cases generated from eval/name-pools.mjs: each category applies one known change to a name, so the
//     label follows from the change (seeded, so the file is reproducible);
//  2. eval/sources/name-pairs-dev.csv (OpenSanctions name_bench, "same entity?") relabelled into
//     MTCH / CMTC / NMTC by the rules in relabelNamePair() below;
//  3. eval/own-cases.csv, hand-written cases for behaviours the generator does not cover.
// Run: node scripts/build-dev-set.mjs   (pnpm --filter @vop/name-matching build-dev-set)
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { LANGUAGES, NON_LATIN } from '../eval/name-pools.mjs';

const evalDir = new URL('../eval/', import.meta.url);

// ---------- deterministic randomness ----------
let seed = 20251005;
function random() {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
}
const pick = (list) => list[Math.floor(random() * list.length)];
function pickOther(list, not) {
  const others = list.filter((x) => !not.includes(x));
  return pick(others);
}

// ---------- helpers on names ----------
const stripMarks = (s) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l')
    .replace(/Ł/g, 'L')
    .replace(/ø/g, 'o')
    .replace(/Ø/g, 'O')
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae');
const GERMANIC = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ß: 'ss',
  ø: 'oe',
  Ø: 'Oe',
  å: 'aa',
  Å: 'Aa',
  æ: 'ae',
};
const transcribeUmlauts = (s) => s.replace(/[äöüÄÖÜßøØåÅæ]/g, (c) => GERMANIC[c]);
const fold = (s) => stripMarks(s).toLowerCase();
const words = (s) =>
  fold(s)
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function surnameOf(lang, female) {
  const entry = pick(LANGUAGES[lang].surnames);
  return Array.isArray(entry) ? entry[female ? 1 : 0] : entry;
}
function person(lang, { female = random() < 0.5, given, surname } = {}) {
  const pool = LANGUAGES[lang];
  const g = given ?? pick(female ? pool.female : pool.male);
  const s = surname ?? surnameOf(lang, female);
  return { given: g, surname: s, female, full: `${g} ${s}` };
}

const KEYBOARD_NEIGHBOURS = {
  a: 'sqz',
  b: 'vn',
  c: 'xv',
  d: 'sf',
  e: 'wr',
  f: 'dg',
  g: 'fh',
  h: 'gj',
  i: 'uo',
  j: 'hk',
  k: 'jl',
  l: 'k',
  m: 'n',
  n: 'bm',
  o: 'ip',
  p: 'o',
  r: 'et',
  s: 'ad',
  t: 'ry',
  u: 'yi',
  v: 'cb',
  w: 'qe',
  z: 'xt',
};
/** One typing slip inside a word of at least five letters, away from its first and last letter. */
function injectTypo(name) {
  const parts = name.split(' ');
  const candidates = parts.map((p, i) => [p, i]).filter(([p]) => /^[\p{L}]{5,}$/u.test(p));
  const [word, index] = pick(candidates);
  const chars = [...word];
  const at = 1 + Math.floor(random() * (chars.length - 3)); // 1 .. len-3, so the last two letters stay
  const op = pick(['substitute', 'delete', 'transpose', 'double']);
  if (op === 'substitute') {
    const lower = chars[at].toLowerCase();
    chars[at] = pick([...(KEYBOARD_NEIGHBOURS[lower] ?? 'e')]);
  } else if (op === 'delete') chars.splice(at, 1);
  else if (op === 'transpose') [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
  else chars.splice(at, 0, chars[at]);
  const typo = chars.join('');
  if (typo === word) return injectTypo(name);
  parts[index] = typo;
  return parts.join(' ');
}

const rows = [];
const add = (typed, holders, holderType, expected, category, language) =>
  rows.push({
    typed_name: typed,
    holder_names: holders.join('|'),
    holder_type: holderType,
    expected,
    category,
    language,
  });

// ---------- 1. generated cases ----------
for (const [lang, pool] of Object.entries(LANGUAGES)) {
  // Persons: the label follows from the change made.
  let p = person(lang);
  add(p.full, [p.full], 'person', 'MTCH', 'exact', lang);
  p = person(lang);
  add(
    random() < 0.5 ? p.full.toUpperCase() : p.full.toLowerCase(),
    [p.full],
    'person',
    'MTCH',
    'cosmetic_case',
    lang,
  );
  p = person(lang);
  const accented = [...pool.male, ...pool.female].filter((n) => stripMarks(n) !== n);
  if (accented.length > 0) {
    p = person(lang, { given: pick(accented), female: pool.female.includes(pick(accented)) });
    add(stripMarks(p.full), [p.full], 'person', 'MTCH', 'cosmetic_accents', lang);
  }
  const umlauted = [...pool.male, ...pool.female, ...pool.surnames.flat()].filter((n) =>
    /[äöüßøåæ]/i.test(n),
  );
  if (umlauted.length > 0) {
    const word = pick(umlauted);
    const q = pool.surnames.flat().includes(word)
      ? person(lang, { surname: word })
      : person(lang, { given: word, female: pool.female.includes(word) });
    add(transcribeUmlauts(q.full), [q.full], 'person', 'MTCH', 'cosmetic_umlaut', lang);
  }
  p = person(lang);
  add(`${p.surname}, ${p.given}`, [p.full], 'person', 'MTCH', 'cosmetic_punctuation', lang);
  p = person(lang);
  add(
    `  ${p.given.toUpperCase()}   ${p.surname}. `,
    [p.full],
    'person',
    'MTCH',
    'cosmetic_punctuation',
    lang,
  );
  p = person(lang);
  add(`${pick(pool.titles)} ${p.full}`, [p.full], 'person', 'MTCH', 'title', lang);
  p = person(lang);
  add(`${p.surname} ${p.given}`, [p.full], 'person', 'CMTC', 'word_order', lang);
  for (let i = 0; i < 2; i++) {
    p = person(lang);
    add(injectTypo(p.full), [p.full], 'person', 'CMTC', 'typo', lang);
  }
  const [full, nick] = pick(pool.nicknames);
  const s = surnameOf(lang, false);
  add(`${nick} ${s}`, [`${full} ${s}`], 'person', 'CMTC', 'nickname', lang);
  p = person(lang);
  add(`${p.given[0]}. ${p.surname}`, [p.full], 'person', 'CMTC', 'initials', lang);
  p = person(lang);
  const second = pickOther(p.female ? pool.female : pool.male, [p.given]);
  add(p.full, [`${p.given} ${second} ${p.surname}`], 'person', 'CMTC', 'middle_name_missing', lang);
  p = person(lang);
  const partner = person(lang, {
    surname: random() < 0.5 ? p.surname : undefined,
    female: !p.female,
  });
  add(partner.full, [p.full, partner.full], 'person', 'MTCH', 'joint_account', lang);
  // Hard negatives.
  p = person(lang);
  let other = person(lang);
  while (other.given === p.given || other.surname === p.surname) other = person(lang);
  add(other.full, [p.full], 'person', 'NMTC', 'different_person', lang);
  p = person(lang);
  const sibling = pickOther(p.female ? pool.female : pool.male, [p.given]);
  add(`${sibling} ${p.surname}`, [p.full], 'person', 'NMTC', 'same_surname', lang);
  p = person(lang);
  let otherSurname = surnameOf(lang, p.female);
  while (otherSurname === p.surname) otherSurname = surnameOf(lang, p.female);
  add(`${p.given} ${otherSurname}`, [p.full], 'person', 'NMTC', 'same_given_name', lang);
  const [base, similar] = pick(pool.similarSurnames);
  const g = pick(pool.male);
  add(`${g} ${similar}`, [`${g} ${base}`], 'person', 'NMTC', 'similar_surname', lang);
  p = person(lang);
  add(p.surname, [p.full], 'person', 'NMTC', 'surname_only', lang);
  p = person(lang);
  add(`${p.given[0]}. ${p.surname[0]}.`, [p.full], 'person', 'NMTC', 'initials_only', lang);
  p = person(lang);
  add(`${p.full} ${pick(pool.forms)[0]}`, [p.full], 'person', 'NMTC', 'person_vs_company', lang);
  p = person(lang);
  const joint = person(lang, { surname: p.surname, female: !p.female });
  const stranger = pickOther(p.female ? pool.male : pool.female, [joint.given]);
  add(
    `${stranger} ${p.surname}`,
    [p.full, joint.full],
    'person',
    'NMTC',
    'joint_account_other',
    lang,
  );
  if (pool.surnames.some((x) => Array.isArray(x) && x[0] !== x[1])) {
    const [male, female] = pick(pool.surnames.filter((x) => Array.isArray(x) && x[0] !== x[1]));
    const given = pick(pool.male);
    add(`${given} ${female}`, [`${given} ${male}`], 'person', 'NMTC', 'same_surname', lang);
  }

  // Organisations.
  const org = () => {
    const [abbr, written] = pick(pool.forms);
    return { base: pick(pool.orgs), abbr, written };
  };
  let o = org();
  add(`${o.base} ${o.abbr}`, [`${o.base} ${o.abbr}`], 'organisation', 'MTCH', 'exact', lang);
  o = org();
  add(
    `${o.base} ${o.abbr}`.toUpperCase(),
    [`${o.base} ${o.abbr}`],
    'organisation',
    'MTCH',
    'cosmetic_case',
    lang,
  );
  o = org();
  add(
    `${o.base}, ${o.abbr.replace(/\./g, '')}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'MTCH',
    'cosmetic_punctuation',
    lang,
  );
  o = org();
  add(
    `${o.base} ${o.written}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'MTCH',
    'legal_form_written_out',
    lang,
  );
  o = org();
  add(o.base, [`${o.base} ${o.abbr}`], 'organisation', 'CMTC', 'legal_form_missing', lang);
  o = org();
  if (o.base.split(' ').some((w) => /^[\p{L}]{5,}$/u.test(w)))
    add(
      `${injectTypo(o.base)} ${o.abbr}`,
      [`${o.base} ${o.abbr}`],
      'organisation',
      'CMTC',
      'typo',
      lang,
    );
  o = org();
  const trading = pickOther(pool.orgs, [o.base]);
  add(trading, [`${o.base} ${o.abbr}`, trading], 'organisation', 'MTCH', 'trading_name', lang);
  o = org();
  add(
    `${pickOther(pool.orgs, [o.base])} ${o.abbr}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'NMTC',
    'different_company',
    lang,
  );
  o = org();
  add(
    `${o.base} ${pick(pool.qualifiers)} ${o.abbr}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'NMTC',
    'sister_company',
    lang,
  );
  o = org();
  const otherForm = pick(
    pool.forms.filter(
      ([a]) => fold(a).replace(/[^a-z]/g, '') !== fold(o.abbr).replace(/[^a-z]/g, ''),
    ),
  );
  add(
    `${o.base} ${otherForm[0]}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'NMTC',
    'legal_form_different',
    lang,
  );
  o = org();
  const [firstWord] = o.base.split(' ');
  const mixed = pool.orgs.find((x) => x !== o.base && x.split(' ').length > 1);
  add(
    `${firstWord} ${mixed.split(' ').slice(1).join(' ')} ${o.abbr}`,
    [`${o.base} ${o.abbr}`],
    'organisation',
    'NMTC',
    'shared_words',
    lang,
  );
  p = person(lang);
  add(p.full, [`${p.full} ${pool.forms[0][0]}`], 'organisation', 'NMTC', 'person_vs_company', lang);
}

for (const [lang, pool] of Object.entries(NON_LATIN)) {
  for (const [native, latin] of pool.persons)
    add(latin, [native], 'person', 'MTCH', 'transliteration', lang);
  for (const [native, latin] of pool.variants ?? [])
    add(latin, [native], 'person', 'MTCH', 'transliteration', lang);
  for (const [native, latin] of pool.different)
    add(latin, [native], 'person', 'NMTC', 'different_person', lang);
  for (const [native, latin] of pool.orgs)
    add(latin, [native], 'organisation', 'MTCH', 'transliteration', lang);
  const [native, latin] = pool.persons[0];
  const [given, surname] = latin.split(' ');
  add(`${surname} ${given}`, [native], 'person', 'CMTC', 'word_order', lang);
  add(surname, [native], 'person', 'NMTC', 'surname_only', lang);
}

// ---------- 2. name-pairs-dev.csv relabelled ----------
const EUROPEAN_SCRIPT =
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}\p{P}\p{S}\p{Zs}\p{M}]+$/u;
const COSMETIC_NOTES =
  /casing|diacritic|cedilla|ğ stripped|hyphen vs space|missing space|joined-camelcase|periods|comma before legal form|& vs and|'the' drop|internal-comma drop|legal-form expansion|last-first comma form|en-gb|en-us|special characters addition|word joining|title addition|u\.s\. abbreviation/i;
const TYPO_NOTES =
  /tiny defect|character deletion|character addition|fat finger|common misspelling|single-char|doubled consonant|vowel reorder|vowel sub|consonant sub|final-consonant|dropped consonant|added consonant|character repetition|phonetic|one-letter|initial-letter sub|internal vowel|letter transposition|surname swap|last name swap|plausible-alternate|word substitution|morphological|brand-stem|pluralisation|orthography/i;
const SKIP_NOTES =
  /given-name sub|contextual|character reversal|alphanumeric|abbreviation|digit to text|text to digit|duplication|word splitting|ordinal|transliteration|romanisation|wade-giles|pinyin|mu\/mo|single-m|v\/w|nisbah|clan|tribal|kunya|patronymic reversal|added .*(father|grandfather|clan|tribal|prefix|unrelated|title)/i;
const VOWELS = 'aeiouy';

function damerau(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}
/** VoP typo policy: no edit in words under 4 letters, one edit, two in words of 11 letters or more, and a
 *  changed final vowel is another name (Maria / Mario). */
function withinTypoPolicy(a, b, isPerson) {
  if (a === b) return true;
  const shorter = Math.min(a.length, b.length);
  if (shorter < 4 || /[0-9]/.test(a + b)) return false;
  const edits = damerau(a, b);
  if (edits > (shorter >= 11 ? 2 : 1)) return false;
  if (edits === 1 && isPerson) {
    const [s, l] = a.length <= b.length ? [a, b] : [b, a];
    const endChange =
      s.length === l.length
        ? s.slice(0, -1) === l.slice(0, -1) &&
          (VOWELS.includes(s.at(-1)) ||
            VOWELS.includes(l.at(-1)) ||
            's' === s.at(-1) ||
            's' === l.at(-1))
        : l.startsWith(s) && (VOWELS.includes(l.at(-1)) || l.at(-1) === 's');
    if (endChange) return false;
  }
  return true;
}
const ROMAN = /^(x{0,3})(ix|iv|v?i{0,3})$/;

function languageOf(name1, name2, notes) {
  const text = name1 + name2;
  if (/\p{Script=Greek}/u.test(text)) return 'el';
  if (/[іїєґ]/i.test(text)) return 'uk';
  if (/\p{Script=Cyrillic}/u.test(text)) return 'ru';
  const country = (notes.match(/\b([A-Z]{2})\b/) ?? [])[1];
  const byCountry = {
    DE: 'de',
    FR: 'fr',
    IT: 'it',
    ES: 'es',
    NL: 'nl',
    PL: 'pl',
    CZ: 'cs',
    SE: 'sv',
    DK: 'da',
    FI: 'fi',
    PT: 'pt',
    HU: 'hu',
    RO: 'ro',
    HR: 'hr',
    RS: 'sr',
    BE: 'nl',
    IE: 'en',
    GB: 'en',
    SK: 'sk',
    IS: 'is',
    NO: 'no',
    TR: 'tr',
    GR: 'el',
    BG: 'bg',
    RU: 'ru',
    UA: 'uk',
    BY: 'be',
  };
  return byCountry[country] ?? 'other';
}

const LEGAL_WORDS =
  /^(ag|gmbh|ltd|limited|inc|incorporated|corp|corporation|co|company|compan|joint|joynt|stock|llc|plc|sa|bv|nv|jsc|ojsc|oao|ooo|aktiengesellschaft|aktiengeselschaft|akg)$/;

function relabelNamePair(row) {
  const schema = row.schema;
  if (schema === 'Vessel') return null;
  if (!EUROPEAN_SCRIPT.test(row.name1) || !EUROPEAN_SCRIPT.test(row.name2)) return null;
  const isPerson = schema === 'Person';
  const notes = `${row.category} ${row.notes}`;
  const typed = words(row.name1);
  const holder = words(row.name2);
  const shared = typed.filter((w) => holder.includes(w));
  const sameMultiset =
    typed.length === holder.length && [...typed].sort().join(' ') === [...holder].sort().join(' ');
  const patronymic = /\b(bin|ibn|ben)\b/.test(typed.join(' ') + ' ' + holder.join(' '));
  if (
    typed.some((w) => /^[0-9]+(st|nd|rd|th)$/.test(w)) ||
    holder.some((w) => /^[0-9]+(st|nd|rd|th)$/.test(w))
  )
    return null;
  // Rule 1: "not the same entity" is a no-match, except the same words in another order (word order policy).
  if (row.is_match === 'false') {
    if (sameMultiset && typed.join(' ') !== holder.join(' ') && isPerson && !patronymic)
      return { expected: 'CMTC', category: 'word_order' };
    if (!isPerson)
      return {
        expected: 'NMTC',
        category: shared.length > 0 ? 'sister_company' : 'different_company',
      };
    if (holder.length > 0 && typed.includes(holder[holder.length - 1]))
      return { expected: 'NMTC', category: 'same_surname' };
    return { expected: 'NMTC', category: shared.length > 0 ? 'shared_words' : 'different_person' };
  }
  // Rule 2: a weak "same entity" is too uncertain to label.
  if (row.quality === 'WEAK') return null;
  // Rule 3: different numbers name different funds, trusts and series.
  const numbers = (ws) =>
    ws.filter((w) => /[0-9]/.test(w) || (!isPerson && w.length > 1 && ROMAN.test(w))).join(' ');
  if (numbers(typed) !== numbers(holder)) return { expected: 'NMTC', category: 'number_different' };
  // Rule 4: sanctions-screening variations outside payee verification are left out.
  if (SKIP_NOTES.test(notes)) return null;
  // Rule 5: the same words in another order.
  if (sameMultiset && typed.join(' ') !== holder.join(' ')) {
    if (row.name2.includes(',') || row.name1.includes(','))
      return { expected: 'MTCH', category: 'cosmetic_punctuation' };
    return patronymic || !isPerson ? null : { expected: 'CMTC', category: 'word_order' };
  }
  const onlyTyped = typed.filter((w) => !holder.includes(w) && !LEGAL_WORDS.test(w) && w !== 'the');
  const onlyHolder = holder.filter(
    (w) => !typed.includes(w) && !LEGAL_WORDS.test(w) && w !== 'the',
  );
  const slips = onlyTyped.filter((a) =>
    onlyHolder.some((b) => a.length >= 4 && b.length >= 4 && damerau(a, b) <= 2),
  );
  // Rule 6: cosmetic variations (case, accents, punctuation, legal form written out, "The") are a match,
  // unless the variation also carries a misspelt word, which makes it a close match.
  if (COSMETIC_NOTES.test(notes)) {
    if (slips.length > 0 && !/en-gb|en-us/i.test(notes))
      return { expected: 'CMTC', category: 'typo' };
    if (/legal-form expansion/i.test(notes))
      return { expected: 'MTCH', category: 'legal_form_written_out' };
    if (/title addition/i.test(notes)) return { expected: 'MTCH', category: 'title' };
    return { expected: 'MTCH', category: 'cosmetic_punctuation' };
  }
  // Rule 7: nicknames, initials, an added middle name, up to two dropped middle names: close matches.
  if (/word reordering/i.test(notes))
    return patronymic ? null : { expected: 'CMTC', category: 'word_order' };
  if (/nickname/i.test(notes)) return { expected: 'CMTC', category: 'nickname' };
  if (/initials usage|initials addition|reduced to initial/i.test(notes))
    return { expected: 'CMTC', category: 'initials' };
  if (/patronymic added|added invented middle|added middle/i.test(notes)) {
    const extraInterior = typed.every(
      (w, i) => holder.includes(w) || (i > 0 && i < typed.length - 1),
    );
    return extraInterior && holder.every((w) => typed.includes(w))
      ? { expected: 'CMTC', category: 'extra_middle_name' }
      : null;
  }
  if (/dropped .*middle|dropped (father|middle)|dropped 2/i.test(notes)) {
    const kept =
      typed.every((w) => holder.includes(w)) &&
      typed[0] === holder[0] &&
      typed.at(-1) === holder.at(-1);
    return kept && holder.length - typed.length <= 2
      ? { expected: 'CMTC', category: 'middle_name_missing' }
      : null;
  }
  // Rule 8: everything else is judged word by word with the VoP typo policy (withinTypoPolicy): the
  // same words → MTCH; a slip in one or two words → CMTC; and, for the synthetic deviations built as
  // near-miss names, a larger change → NMTC (another name). Other rows are left out.
  if (typed.join(' ') === holder.join(' '))
    return { expected: 'MTCH', category: 'cosmetic_punctuation' };
  if (typed.length !== holder.length) return null;
  const differing = typed.map((w, i) => [w, holder[i]]).filter(([a, b]) => a !== b);
  if (
    differing.length > 2 ||
    differing.some(([a, b]) => LEGAL_WORDS.test(a) || LEGAL_WORDS.test(b))
  )
    return null;
  if (
    isPerson &&
    differing.every(([a, b]) => (a.length === 1) !== (b.length === 1) && a[0] === b[0])
  )
    return { expected: 'CMTC', category: 'initials' };
  if (differing.every(([a, b]) => withinTypoPolicy(a, b, isPerson)))
    return { expected: 'CMTC', category: 'typo' };
  if (row.case_group.startsWith('synth_') && TYPO_NOTES.test(notes))
    return { expected: 'NMTC', category: isPerson ? 'similar_name' : 'similar_company' };
  return null;
}

const namePairs = parse(readFileSync(new URL('sources/name-pairs-dev.csv', evalDir)), {
  columns: true,
  skip_empty_lines: true,
});
let relabelled = 0;
for (const row of namePairs) {
  const label = relabelNamePair(row);
  if (!label) continue;
  relabelled++;
  const holderType = row.schema === 'Person' ? 'person' : 'organisation';
  add(
    row.name1,
    [row.name2],
    holderType,
    label.expected,
    label.category,
    languageOf(row.name1, row.name2, `${row.notes} ${row.category}`),
  );
}

// ---------- 3. hand-written cases ----------
const own = parse(readFileSync(new URL('own-cases.csv', evalDir)), {
  columns: true,
  skip_empty_lines: true,
  comment: '#',
});
for (const row of own) rows.push(row);

// ---------- write ----------
const quote = (v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const header = ['typed_name', 'holder_names', 'holder_type', 'expected', 'category', 'language'];
const seen = new Set();
const unique = rows.filter((r) => {
  const key = `${r.typed_name}\u0000${r.holder_names}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
});
writeFileSync(
  new URL('vop-dev-set.csv', evalDir),
  [header.join(','), ...unique.map((r) => header.map((h) => quote(r[h])).join(','))].join('\n') +
    '\n',
);
const count = (f) => unique.filter(f).length;
console.log(
  `${unique.length} cases (${relabelled} relabelled from name-pairs-dev.csv, ${own.length} hand-written); ` +
    `NMTC ${count((r) => r.expected === 'NMTC')}, CMTC ${count((r) => r.expected === 'CMTC')}, MTCH ${count((r) => r.expected === 'MTCH')}; ` +
    `languages ${new Set(unique.map((r) => r.language)).size}`,
);
