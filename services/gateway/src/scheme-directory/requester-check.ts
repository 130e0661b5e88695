import { ApiError, type Principal } from '@vop/http';
import type { Logger } from '@vop/observability';
import { normaliseBic } from './adherence.js';
import type { SchemeDirectory } from './scheme-directory.js';

/**
 * Admission to /vop/*: the requester must be a scheme participant of this deployment's environment
 * (its certificate's PSD2 authorisation number in the loaded directory), and the requestingAgent BIC
 * it names must be one of that participant's. Refusals are 401: CLIENT_INVALID / CLIENT_INCONSISTENT
 * on the EPC path, VOP_002 with that reason on the seed path.
 */
export interface RequesterCheck {
  /** Before the body is read: is the certificate's holder a participant? */
  refusalOfCertificate(principal: Principal | undefined): ApiError | undefined;
  /** Once the body is valid: does its requestingAgent BIC belong to the certificate's holder? */
  refusalOfRequestingAgent(principal: Principal | undefined, bic: string): ApiError | undefined;
  /** Is this partyAgent BIC one this deployment answers for? */
  isOurBic(bic: string): boolean;
}

const clientInvalid = (message: string) =>
  new ApiError(401, 'CLIENT_INVALID', message, {
    reason: 'CLIENT_INVALID',
    epcCode: 'CLIENT_INVALID',
  });

const clientInconsistent = () =>
  new ApiError(
    401,
    'CLIENT_INCONSISTENT',
    'The requestingAgent BIC does not belong to the participant of the client certificate',
    {
      field: 'requestingAgent.financialInstitutionId.bicfi',
      reason: 'CLIENT_INCONSISTENT',
      epcCode: 'CLIENT_INCONSISTENT',
    },
  );

function authorisationNumberOf(principal: Principal | undefined): string | undefined {
  return principal?.kind === 'certificate' ? principal.organizationIdentifier : undefined;
}

/**
 * With no directory loaded, a live deployment refuses every requester (fail closed); a test
 * deployment (sandbox) admits every valid certificate until one is loaded, and says so once.
 */
export function requesterCheck(options: {
  directory: SchemeDirectory;
  /** The partyAgent BICs we answer for; undefined: every partyAgent (a gateway built without settings). */
  ownBics: readonly string[] | undefined;
  logger: Logger;
}): RequesterCheck {
  const { directory, logger } = options;
  const ours = options.ownBics && new Set(options.ownBics.map(normaliseBic));
  let warned = false;

  function admitsWithoutDirectory(): boolean {
    if (directory.environment === 'live') return false;
    if (!warned) {
      warned = true;
      logger.warn('no scheme directory loaded: the sandbox admits every valid certificate');
    }
    return true;
  }

  return {
    refusalOfCertificate(principal) {
      const index = directory.current();
      if (index === undefined)
        return admitsWithoutDirectory()
          ? undefined
          : clientInvalid('No scheme directory is loaded; no requester can be admitted');
      return index.isParticipant(authorisationNumberOf(principal))
        ? undefined
        : clientInvalid(
            'The client certificate does not name a scheme participant of this environment',
          );
    },
    refusalOfRequestingAgent(principal, bic) {
      const index = directory.current();
      if (index === undefined) return undefined;
      const adherence = index.adherence(authorisationNumberOf(principal), bic);
      if (adherence === 'ADHERENT') return undefined;
      return adherence === 'CLIENT_INCONSISTENT'
        ? clientInconsistent()
        : clientInvalid('The client certificate does not name a scheme participant');
    },
    isOurBic: (bic) => ours?.has(normaliseBic(bic)) ?? true,
  };
}
