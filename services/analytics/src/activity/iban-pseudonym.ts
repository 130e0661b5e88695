import { createHash } from 'node:crypto';
import { maskIban } from '@vop/observability';

/**
 * Analytics keeps no full IBAN: a SHA-256 pseudonym joins an account with the verifications of its
 * IBAN, and the masked form ("DE89**************3000") is what the admin sees.
 */
export interface IbanPseudonym {
  hash: string;
  masked: string;
}

export function ibanPseudonym(iban: string): IbanPseudonym {
  const compact = iban.replace(/\s+/g, '').toUpperCase();
  return {
    hash: createHash('sha256').update(compact, 'utf8').digest('hex'),
    masked: maskIban(compact),
  };
}
