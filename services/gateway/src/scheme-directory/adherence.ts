import { rolesOf, type ResponderEndpoint, type SchemeDirectorySnapshot } from '@vop/contracts';

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

/** A responding participant as routing reads it: its endpoints by priority, 1 first. */
export interface Responder {
  authorisationNumber: string;
  endpoints: readonly ResponderEndpoint[];
}

/**
 * The loaded snapshot indexed for one environment: authorisation number → its BICs (admission), and
 * BIC (11 characters) → the responding participant holding it (routing).
 */
export class SchemeParticipantIndex {
  private readonly bicsByParticipant = new Map<string, Set<string>>();
  private readonly respondersByBic = new Map<string, Responder>();

  constructor(
    readonly version: number,
    snapshot: SchemeDirectorySnapshot,
    environment: DeploymentEnvironment,
  ) {
    const flag = environment === 'live' ? 'L' : 'T';
    for (const participant of snapshot.participants) {
      if (participant.environment !== flag) continue;
      const bics = new Set(participant.bics.map(normaliseBic));
      this.bicsByParticipant.set(participant.authorisationNumber, bics);
      if (!rolesOf(participant).includes('responding')) continue;
      const responder = {
        authorisationNumber: participant.authorisationNumber,
        endpoints: [...(participant.endpoints ?? [])].sort((a, b) => a.priority - b.priority),
      };
      // A snapshot loaded before BICs had to be unique: the first participant keeps the BIC.
      for (const bic of bics)
        if (!this.respondersByBic.has(bic)) this.respondersByBic.set(bic, responder);
    }
  }

  /**
   * The responding participant holding a BIC (11 characters); a branch BIC no one holds falls back to
   * its head office (`XXX`).
   */
  responderHolding(bic: string): Responder | undefined {
    return (
      this.respondersByBic.get(bic) ??
      (bic.endsWith('XXX') ? undefined : this.respondersByBic.get(`${bic.slice(0, 8)}XXX`))
    );
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
