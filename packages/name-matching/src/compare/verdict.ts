import type { ReasonCode } from '../types.js';

/** Result of comparing one typed name with one holder name, before thresholds are applied. */
export type Verdict =
  | { readonly kind: 'scored'; readonly score: number; readonly reasons: readonly ReasonCode[] }
  /** A safety rule answered: never a match, whatever the thresholds. agreement in [0, 1]. */
  | { readonly kind: 'rejected'; readonly reason: ReasonCode; readonly agreement: number };

export function rejected(reason: ReasonCode, agreement = 0): Verdict {
  return { kind: 'rejected', reason, agreement };
}

/** Collects factors and reasons while a comparison walks through the differences it tolerates. */
export class ScoreSheet {
  private score = 1;
  private readonly reasons: ReasonCode[] = [];

  apply(factor: number, reason: ReasonCode): void {
    this.score *= factor;
    if (!this.reasons.includes(reason)) this.reasons.push(reason);
  }

  /** A reason whose factor counts once per name, however many words it touches. */
  applyOnce(factor: number, reason: ReasonCode): void {
    if (this.reasons.includes(reason)) return;
    this.apply(factor, reason);
  }

  note(reason: ReasonCode): void {
    if (!this.reasons.includes(reason)) this.reasons.push(reason);
  }

  verdict(): Verdict {
    return { kind: 'scored', score: this.score, reasons: this.reasons };
  }
}
