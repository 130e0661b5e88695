import type { ConformanceCase, ConformanceGroup } from '../types.js';
import { BIC_CASES } from './bic-cases.js';
import { ID_CASES } from './id-cases.js';
import { LEI_CASES } from './lei-cases.js';
import { NAME_CASES } from './name-cases.js';

/** The scheme suite's name as a run asks for it (specification, family I). */
export const SCHEME_SUITE_NAME = 'scheme139-25';

export const SCHEME_SUITE_GROUPS: readonly ConformanceGroup[] = ['name', 'bic', 'lei', 'id'];

/** 131 cases: name 45, BIC 32, LEI 28, ID 26; each one request to the EPC path with its expectation. */
export const SCHEME_SUITE_CASES: readonly ConformanceCase[] = [
  ...NAME_CASES,
  ...BIC_CASES,
  ...LEI_CASES,
  ...ID_CASES,
];
