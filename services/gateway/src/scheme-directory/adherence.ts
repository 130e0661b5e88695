import type { SchemeDirectorySnapshot } from '@vop/contracts';

export type DeploymentEnvironment = 'test' | 'live';

/** A BIC in its 11-character form: an 8-character BIC is the head office, `XXX`. */
export function normaliseBic(bic: string): string {
  const upper = bic.trim().toUpperCase();
  return upper.length === 8 ? `${upper}XXX` : upper;
}

/**
 * Whether a requester adheres to the scheme in this deployment's environment:
 * - `ADHERENT`: its certificate's authorisation number is a participant of the environment (T for
 *   test deployments, L for live) and the requestingAgent BIC is one of that participant's;
 * - `CLIENT_INVALID`: no such participant (or the certificate carries no authorisation number);
 * - `CLIENT_INCONSISTENT`: the participant exists, the BIC is not one of its BICs.
 */
export type Adherence = 'ADHERENT' | 'CLIENT_INVALID' | 'CLIENT_INCONSISTENT';

/** The loaded snapshot indexed for one environment: authorisation number → its BICs. */
export class SchemeParticipantIndex {
  private readonly bicsByParticipant = new Map<string, Set<string>>();

  constructor(
    readonly version: number,
    snapshot: SchemeDirectorySnapshot,
    environment: DeploymentEnvironment,
  ) {
    const flag = environment === 'live' ? 'L' : 'T';
    for (const participant of snapshot.participants) {
      if (participant.environment !== flag) continue;
      this.bicsByParticipant.set(
        participant.authorisationNumber,
        new Set(participant.bics.map(normaliseBic)),
      );
    }
  }

  get size(): number {
    return this.bicsByParticipant.size;
  }

  /** Is the participant known in this environment (before the body names a BIC)? */
  isParticipant(authorisationNumber: string | undefined): boolean {
    return authorisationNumber !== undefined && this.bicsByParticipant.has(authorisationNumber);
  }

  adherence(authorisationNumber: string | undefined, requestingBic: string): Adherence {
    const bics =
      authorisationNumber === undefined
        ? undefined
        : this.bicsByParticipant.get(authorisationNumber);
    if (bics === undefined) return 'CLIENT_INVALID';
    return bics.has(normaliseBic(requestingBic)) ? 'ADHERENT' : 'CLIENT_INCONSISTENT';
  }
}
