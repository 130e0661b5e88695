import { LRUCache } from 'lru-cache';
import { NormalisedName } from './normalised-name.js';
import type { LegalFormIndex } from './tables/legal-form-index.js';
import { tokenise } from './text/tokenise.js';

/** Folds and tokenises names, keeping recent ones in a bounded LRU cache (holder names recur). */
export class NameNormaliser {
  private readonly cache: LRUCache<string, NormalisedName> | undefined;

  constructor(private readonly legalForms: LegalFormIndex, cacheSize: number) {
    this.cache = cacheSize > 0 ? new LRUCache<string, NormalisedName>({ max: cacheSize }) : undefined;
  }

  normalise(raw: string): NormalisedName {
    const cached = this.cache?.get(raw);
    if (cached) return cached;
    const name = new NormalisedName(raw, tokenise(raw), this.legalForms);
    this.cache?.set(raw, name);
    return name;
  }
}
