// Name parts that say which person is meant. Written for this project (Apache-2.0) from public naming
// conventions (Vietnamese gender middle names, Hungarian married names, Iberian and Brazilian generational
// words, Spanish and Portuguese compound given names); the sources are listed in data/LICENSES.md.

/** Vietnamese middle names that mark the bearer's sex: Nguyễn Thị Lan is a woman, Nguyễn Văn Lan a man. */
export const GENDER_MIDDLE_NAMES: ReadonlyMap<string, 'female' | 'male'> = new Map([
  ['thi', 'female'],
  ['van', 'male'],
]);

/** Hungarian "wife of" suffix: Kovács Jánosné is the wife of Kovács János, Kovácsné a Mrs Kovács. */
export const WIFE_OF_SUFFIX = 'ne';
/** A stem shorter than this is no name (Irene, Anne are not the wives of Ire and An). */
export const WIFE_OF_MIN_STEM = 4;

/**
 * Given names written as two words that form one name, each half being another person's name (María
 * José is a woman, José a man). Hyphenated given names (Jean-Pierre, Min-jun) are compounds as written.
 */
export const COMPOUND_GIVEN_NAMES: ReadonlySet<string> = new Set([
  'maria jose',
  'jose maria',
  'maria jesus',
  'jesus maria',
  'maria luisa',
  'jose luis',
  'juan carlos',
  'juan jose',
  'jose antonio',
  'maria carmen',
  'maria angeles',
  'maria teresa',
  'jose manuel',
  'juan pablo',
  'jean pierre',
  'jean paul',
  'jean luc',
  'jean marie',
  'marie claire',
  'anne marie',
  'marie therese',
  'joao pedro',
  'joao paulo',
  'ana paula',
  'ana luisa',
  'maria joao',
]);

/** First halves of the compound given names: most word pairs are turned away by one set lookup. */
export const COMPOUND_FIRST_HALVES: ReadonlySet<string> = new Set(
  [...COMPOUND_GIVEN_NAMES].map((name) => name.slice(0, name.indexOf(' '))),
);

/**
 * Given names spelt almost alike that are two names, often of the two sexes: Ilka (hu, f) / Ilkka (fi,
 * m), Katalin (hu, f) / Cătălin (ro, m), Sara / Zara, Sanne (nl) / Zane (lv). The loose spelling key would take them for one.
 */
export const DIFFERENT_NAMES_SPELT_ALIKE: readonly (readonly [string, string])[] = [
  ['ilka', 'ilkka'],
  ['katalin', 'catalin'],
  ['sara', 'zara'],
  ['sanne', 'zane'],
];
