import { LRUCache } from 'lru-cache';
import { NormalisedName } from './normalised-name.js';
import type { GivenNames } from './joint-holders.js';
import type { LegalFormIndex } from './tables/legal-form-index.js';
import { tokenise } from './text/tokenise.js';

/**
 * Folds and tokenises names. Holder names recur (one account, many checks), so recent ones are kept in a
 * bounded LRU cache; typed names are mostly new and are not cached, so they cannot evict holder names.
 */
export class NameNormaliser {
  private readonly cache: LRUCache<string, NormalisedName> | undefined;

  constructor(
    private readonly legalForms: LegalFormIndex,
    private readonly givenNames: GivenNames,
    cacheSize: number,
  ) {
    this.cache =
      cacheSize > 0 ? new LRUCache<string, NormalisedName>({ max: cacheSize }) : undefined;
  }

  normaliseHolderName(raw: string): NormalisedName {
    const cached = this.cache?.get(raw);
    if (cached) return cached;
    const name = this.normalise(raw);
    this.cache?.set(raw, name);
    return name;
  }

  normalise(raw: string): NormalisedName {
    return new NormalisedName(raw, tokenise(raw), this.legalForms, this.givenNames);
  }
}
