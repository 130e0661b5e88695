#!/usr/bin/env node
// Turns the reference tables in ../data into compact TypeScript modules under ../src/generated, so the
// library itself does no I/O. Run after changing a table: `pnpm --filter @vop/name-matching generate`.
// Aliases stay raw strings here; the matcher normalises them once, with its own normaliser, when built.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import anyAscii from 'any-ascii';

const dataDir = new URL('../data/', import.meta.url);
const outDir = new URL('../src/generated/', import.meta.url);
mkdirSync(outDir, { recursive: true });

const read = (name) => readFileSync(new URL(name, dataDir), 'utf8');
const compact = (s) =>
  anyAscii(s)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
// Latin, Greek and Cyrillic only: the scripts of the European names this engine serves.
const isEuropeanScript = (s) =>
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}\p{P}\p{Zs}\p{M}&+'’/-]+$/u.test(s);
const ROMAN_NUMERAL = /^(x{0,3})(ix|iv|v?i{0,3})$/;
// Abbreviations that are also ordinary name parts or suffixes; treating them as legal forms would eat names.
const DENIED_ALIASES = new Set([
  'sr',
  'jr',
  'mr',
  'dr',
  'ma',
  'st',
  'no',
  'de',
  'la',
  'le',
  'el',
  'di',
  'da',
  'do',
  'du',
  'van',
  'von',
  'of',
  'and',
  'the',
  'und',
  'et',
  'co',
  'corp',
  'company',
  'corporation',
  'cie',
  'li',
  'fa',
  'pa',
  'cn',
  'trust',
  'society',
  'charity',
  'embassy',
  'district',
  'canton',
  'cantone',
  'kanton',
  'commune',
  'comune',
  'gemeinde',
  'bezirk',
  'bund',
  'multi',
  'procura',
  'prokura',
  'uchr',
  'fund',
  'assoc',
  'assn',
  'persero',
  'perum',
  'bank',
  'group',
]);
// Words that name what an organisation is or does rather than its legal form; an alias containing one
// ("Savings Bank", "Investment Fund", "Trust Company") is not used, so "Deutsche Bank Trust" keeps "Trust".
const GENERIC_WORDS = new Set([
  'bank',
  'banking',
  'fund',
  'funds',
  'fonds',
  'fondo',
  'fundo',
  'fond',
  'trust',
  'trusts',
  'union',
  'society',
  'church',
  'school',
  'university',
  'hospital',
  'council',
  'authority',
  'agency',
  'government',
  'ministry',
  'department',
  'office',
  'municipality',
  'municipal',
  'city',
  'county',
  'state',
  'region',
  'club',
  'railroad',
  'railway',
  'series',
  'business',
  'institution',
  'institute',
  'estate',
  'insurance',
  'pension',
  'syndicates',
  'condominiums',
  'condominio',
  'congregacion',
  'estado',
  'ente',
  'kommune',
  'kommun',
  'obec',
  'kraj',
  'kunta',
  'sparkasse',
  'sparbank',
  'sparebank',
  'ejido',
  'comunidad',
  'mutua',
  'mutuelle',
  'fideicomiso',
  'fiducie',
  'sklad',
  'ustanova',
  'podruznica',
  'anstalt',
  'religious',
  'charity',
  'charitable',
  'sindicato',
  'syndicate',
  'foreign',
  'branch',
  'representative',
]);
// Single words that are legal forms in the ELF list but ordinary words in names.
const GENERIC_SINGLE_WORDS = new Set([
  'association',
  'foundation',
  'foundations',
  'partnership',
  'partnerships',
  'corporation',
  'corporacion',
  'cooperative',
  'cooperatives',
  'cooperativa',
  'cooperativas',
  'asociacion',
  'associazione',
  'associacao',
  'fundacion',
  'fondazione',
  'fundacao',
  'sole-proprietorship',
  'soleproprietorship',
  'congregation',
  'departement',
  'municipalidad',
  'institution',
  'condominiums',
  'metropole',
  'ministere',
  'treuhanderschaft',
  'einzelunternehmen',
  'einzelfirma',
  'societe',
]);
const MAX_ALIAS_WORDS = 7;

function usableName(name) {
  const words = anyAscii(name)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.length === 0 || words.length > MAX_ALIAS_WORDS) return false;
  if (words.some((w) => GENERIC_WORDS.has(w))) return false;
  // A single word is a legal form only when it is a distinctive compound (Aktiengesellschaft, Osakeyhtiö).
  if (words.length === 1 && (words[0].length < 9 || GENERIC_SINGLE_WORDS.has(words[0])))
    return false;
  return true;
}
function usableAbbreviation(abbr) {
  const c = compact(abbr);
  if (
    anyAscii(abbr)
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .some((w) => GENERIC_WORDS.has(w))
  )
    return false;
  return (
    c.length >= 2 &&
    !ROMAN_NUMERAL.test(c) &&
    !DENIED_ALIASES.has(c) &&
    !DENIED_ALIASES.has(abbr.toLowerCase())
  );
}

/** @type {Map<string, {key: string, generic: string | null, prefix: boolean, aliases: Set<string>}>} */
const forms = new Map();
const aliasOwner = new Map(); // compact alias -> key (first owner wins)
function addAlias(key, alias) {
  const c = compact(alias);
  if (!c || !isEuropeanScript(alias)) return;
  if (aliasOwner.has(c) && aliasOwner.get(c) !== key) return;
  aliasOwner.set(c, key);
  forms.get(key).aliases.add(alias.trim());
}
function ensureForm(key, generic, prefix) {
  if (!forms.has(key)) forms.set(key, { key, generic, prefix, aliases: new Set() });
  const form = forms.get(key);
  if (!form.generic && generic) form.generic = generic;
  return form;
}

// 1. Designators written for this project (Co., Corp.): end of name only.
for (const row of parseCsv(read('legal-form-designators.csv'), {
  columns: true,
  comment: '#',
  skip_empty_lines: true,
})) {
  ensureForm(row.key, 'LLC', false);
  addAlias(row.key, row.alias);
}

// 2. OpenSanctions org_types: display/compare forms and aliases, with the generic class.
const orgTypes = parseYaml(read('org_types.yml')).types;
for (const type of orgTypes) {
  const aliases = (type.aliases ?? []).filter((a) => typeof a === 'string');
  const names = [type.compare, type.display, ...aliases].filter(
    (a) => typeof a === 'string' && a.trim(),
  );
  const europeanNames = names.filter(isEuropeanScript);
  if (europeanNames.length === 0) continue;
  const key = compact(type.compare || type.display || europeanNames[0]);
  if (!key || DENIED_ALIASES.has(key) || ROMAN_NUMERAL.test(key)) continue;
  const owner = aliasOwner.get(key) ?? key;
  ensureForm(owner, type.generic || null, true);
  for (const alias of europeanNames) {
    const c = compact(alias);
    if (DENIED_ALIASES.has(c) || ROMAN_NUMERAL.test(c) || c.length < 2) continue;
    if (
      anyAscii(alias)
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .some((w) => GENERIC_WORDS.has(w))
    )
      continue;
    addAlias(owner, alias);
  }
}

// 3. GLEIF ISO 20275 ELF list: abbreviations always, local/transliterated names when distinctive.
const elfRows = parseCsv(read('elf-code-list.csv'), {
  columns: true,
  skip_empty_lines: true,
  bom: true,
});
for (const row of elfRows) {
  const abbreviations =
    `${row['Abbreviations Local language']};${row['Abbreviations transliterated']}`
      .split(';')
      .map((a) => a.trim())
      .filter((a) => a && usableAbbreviation(a) && isEuropeanScript(a));
  const longNames = [
    row['Entity Legal Form name Local name'],
    row['Entity Legal Form name Transliterated name (per ISO 01-140-10)'],
  ]
    .map((n) => (n ?? '').trim())
    .filter((n) => n && isEuropeanScript(n) && usableName(n));
  const all = [...abbreviations, ...longNames];
  if (all.length === 0) continue;
  const known = all.map((a) => aliasOwner.get(compact(a))).find(Boolean);
  const key = known ?? compact(abbreviations[0] ?? longNames[0]);
  if (!key) continue;
  ensureForm(key, null, true);
  for (const alias of all) addAlias(key, alias);
}

// 4. Aliases written for this project that join a written-out form to its abbreviation.
for (const row of parseCsv(read('legal-form-aliases.csv'), {
  columns: true,
  comment: '#',
  skip_empty_lines: true,
})) {
  const key = aliasOwner.get(compact(row.same_as));
  if (!key) throw new Error(`legal-form-aliases.csv: unknown form ${row.same_as}`);
  const previous = aliasOwner.get(compact(row.alias));
  if (previous && previous !== key) {
    for (const alias of [...forms.get(previous).aliases])
      if (compact(alias) === compact(row.alias)) forms.get(previous).aliases.delete(alias);
  }
  aliasOwner.set(compact(row.alias), key);
  forms.get(key).aliases.add(row.alias);
}

const legalForms = [...forms.values()]
  .filter((f) => f.aliases.size > 0)
  .map((f) => ({
    key: f.key,
    generic: f.generic,
    prefix: f.prefix,
    aliases: [...f.aliases].sort(),
  }));

// Nickname groups: carltonnorthern (name1 has_nickname name2), rigour person_nick, and the European table.
const groups = new Map();
for (const row of parseCsv(read('nicknames.csv'), { columns: true, skip_empty_lines: true })) {
  if (row.relationship !== 'has_nickname') continue;
  if (!groups.has(`en:${row.name1}`)) groups.set(`en:${row.name1}`, new Set([row.name1]));
  groups.get(`en:${row.name1}`).add(row.name2);
}
const symbols = parseYaml(read('symbols.yml'));
for (const [id, names] of Object.entries(symbols.person_nick ?? {})) {
  if (Array.isArray(names) && names.length > 1)
    groups.set(`os:${id}`, new Set(names.map((n) => String(n).toLowerCase())));
}
read('nicknames-europe.csv')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .forEach((line, i) => {
    groups.set(
      `eu:${i}`,
      new Set(
        line
          .split('|')
          .map((n) => n.trim().toLowerCase())
          .filter(Boolean),
      ),
    );
  });
const nicknameGroups = [...groups.values()].map((g) => [...g]).filter((g) => g.length > 1);

const givenNames = read('given-names-europe.txt')
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .flatMap((l) => l.split(/\s+/))
  .filter(Boolean);

const header = (source) =>
  `// GENERATED by scripts/generate-tables.mjs from ${source} - do not edit by hand.\n// Licences: data/LICENSES.md.\n`;
writeFileSync(
  new URL('legal-forms.ts', outDir),
  `${header('data/org_types.yml, data/elf-code-list.csv, data/legal-form-designators.csv')}
export interface LegalFormEntry {
  /** Identity of the legal form: two aliases with the same key are the same form written differently. */
  readonly key: string;
  /** OpenSanctions generic class (LLC, JSC, LP, ...) when known. */
  readonly generic: string | null;
  /** Whether the form may stand at the start of a name (OOO Gazprom) as well as at its end. */
  readonly prefix: boolean;
  readonly aliases: readonly string[];
}

export const LEGAL_FORMS: readonly LegalFormEntry[] = ${JSON.stringify(legalForms)};
`,
);
writeFileSync(
  new URL('nicknames.ts', outDir),
  `${header('data/nicknames.csv, data/symbols.yml (person_nick), data/nicknames-europe.csv')}
/** Each group holds a full given name and its short forms; names sharing a group are nickname-related. */
export const NICKNAME_GROUPS: readonly (readonly string[])[] = ${JSON.stringify(nicknameGroups)};
`,
);
writeFileSync(
  new URL('given-names.ts', outDir),
  `${header('data/given-names-europe.txt')}
export const GIVEN_NAMES: readonly string[] = ${JSON.stringify(givenNames)};
`,
);
const aliasCount = legalForms.reduce((n, f) => n + f.aliases.length, 0);
console.log(
  `legal forms: ${legalForms.length} (${aliasCount} aliases); nickname groups: ${nicknameGroups.length}; given names: ${givenNames.length}`,
);
