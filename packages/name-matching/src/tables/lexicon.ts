// Small closed word lists of the pipeline. Written for this project; all entries are folded ASCII.

/** Forms of address and academic titles, dropped from the start of a person's name. */
export const LEADING_TITLES: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'drs', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady', 'rev', 'revd',
  'herr', 'frau', 'fraulein', 'eheleute', 'kfm', 'kffr', 'betriebsw', 'hr', 'fr', 'dipl', 'diplom', 'ing', 'med', 'dent', 'rer', 'nat', 'phil', 'jur', 'habil',
  'mag', 'mgr', 'bc', 'ing', 'phdr', 'mudr', 'judr', 'rndr', 'paeddr', 'doc', 'univ',
  'monsieur', 'madame', 'mademoiselle', 'mme', 'mlle',
  'signor', 'signore', 'signora', 'signorina', 'sig', 'sigra', 'dott', 'dottssa', 'dottor', 'avv', 'arch', 'geom', 'rag',
  'senor', 'senora', 'senorita', 'sr', 'sra', 'srta', 'dna', 'dra', 'eng', 'engo', 'lic',
  'dhr', 'mevr', 'mevrouw', 'mw', 'heer', 'ir',
  'pan', 'pani', 'panna', 'inz',
  'fru', 'froken', 'hra',
  'kyrios', 'kyria', 'herra', 'rouva', 'tohtori', 'dl', 'dna', 'dnul', 'domnul', 'doamna', 'gda', 'gosp', 'ra', 'ssa', 'ifj', 'id',
  'gospodin', 'gospozha', 'gn', 'gzha',
]);

/** Post-nominal letters, dropped from the end of a person's name. */
export const TRAILING_TITLES: ReadonlySet<string> = new Set([
  'phd', 'msc', 'mba', 'bsc', 'esq', 'ur', 'dds', 'cpa', 'cfa', 'llm', 'mphil', 'md', 'frcs', 'obe', 'mbe', 'cbe', 'kbe',
]);

/** Name particles: part of a surname, but often dropped or joined (van der Berg, Vandenberg, Berg). */
export const PARTICLES: ReadonlySet<string> = new Set([
  'van', 'von', 'de', 'der', 'den', 'del', 'della', 'dei', 'di', 'da', 'das', 'dos', 'du', 'des', 'le', 'la', 'ten',
  'ter', 'zu', 'zum', 'zur', 'af', 'av', 'al', 'el', 'st', 'mac', 'mc',
]);

/** Particles that mark descent (son of); reordering names around them changes who is meant. */
export const PATRONYMIC_PARTICLES: ReadonlySet<string> = new Set([
  'bin', 'ibn', 'ben', 'bint', 'binti', 'ould', 'ogly', 'oglu', 'kyzy',
]);

/** Generation markers: John Smith Jr. and John Smith Sr. are two people. */
export const GENERATION_MARKERS: ReadonlyMap<string, string> = new Map([
  ['jr', 'junior'], ['junior', 'junior'], ['jun', 'junior'], ['sr', 'senior'], ['snr', 'senior'], ['senior', 'senior'],
  ['sen', 'senior'], ['ii', 'ii'], ['iii', 'iii'], ['iv', 'iv'],
]);

/** Words joining two names: "John & Jane Smith", "Hans und Grete Müller". */
export const CONNECTORS: ReadonlySet<string> = new Set(['&', 'and', 'und', 'et', 'en', 'och', 'og', 'oder', 'or', 'ou']);

/** Words of organisation names that carry no identity and are ignored on both sides. */
export const ORGANISATION_STOPWORDS: ReadonlySet<string> = new Set([
  '&', 'and', 'und', 'et', 'the', 'of', 'for', 'de', 'der', 'die', 'das', 'des', 'du', 'le', 'la', 'les', 'il', 'lo',
  'el', 'los', 'las', 'di', 'del', 'della', 'da', 'do', 'dos', 'het', 'een',
]);

/** Abbreviations and British/American spellings in organisation names, mapped to one spelling. */
export const ORGANISATION_SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['intl', 'international'], ['int', 'international'], ['natl', 'national'], ['grp', 'group'], ['hldgs', 'holdings'],
  ['hldg', 'holding'], ['mfg', 'manufacturing'], ['svcs', 'services'], ['svc', 'service'], ['bros', 'brothers'],
  ['assn', 'association'], ['univ', 'university'], ['dept', 'department'], ['govt', 'government'],
  ['mgmt', 'management'], ['ctr', 'center'], ['centre', 'center'], ['organisation', 'organization'],
  ['organisations', 'organizations'], ['org', 'organization'], ['labour', 'labor'], ['1st', 'first'],
  ['2nd', 'second'], ['3rd', 'third'], ['us', 'united states'], ['usa', 'united states'], ['uk', 'united kingdom'],
  ['st', 'saint'], ['ste', 'sainte'], ['sankt', 'saint'],
]);

/** Words that make a name an organisation's when no holder type is given and no legal form is found. */
export const ORGANISATION_WORDS: ReadonlySet<string> = new Set([
  'bank', 'banca', 'banco', 'banque', 'group', 'gruppe', 'groupe', 'gruppo', 'holding', 'holdings', 'company',
  'corporation', 'foundation', 'stiftung', 'fondation', 'fondazione', 'association', 'verein', 'trust', 'fund',
  'club', 'church', 'university', 'universitat', 'school', 'hospital', 'ministry', 'services', 'service', 'solutions',
  'consulting', 'international', 'systems', 'technologies', 'technology', 'partners', 'capital', 'investments',
  'insurance', 'versicherung', 'assurance', 'industries', 'industrie', 'enterprises', 'agency', 'council',
  'government', 'organization', 'institute', 'institut', 'society', 'cooperative', 'genossenschaft', 'limited',
  'verlag', 'bau', 'immobilien', 'logistics', 'logistik', 'software', 'energy', 'energie', 'motors', 'airlines',
  'stichting', 'vereniging', 'fundacion', 'fundacja', 'spolka', 'sparkasse', 'volksbank', 'raiffeisenbank',
]);
