import type { Request, Response } from 'express';
import { principalOf, requestFamily } from '@vop/http';

export interface RateLimitSettings {
  environment: 'test' | 'live';
  /** Live verification budget per participant per minute; `default` for every other caller. */
  livePerMinute: Record<string, number>;
  /**
   * The same in test deployments (VOP_TEST_RATE_LIMITS). Absent, the live limits apply there too: no
   * deployment answers verifications without a budget (issue 39: a sandbox was probed at 51,000 a minute).
   */
  testVerificationsPerMinute?: Record<string, number>;
  testPerHour: number;
  adminPerMinute: number;
}

/** One budget a request draws from: which bucket, whose, how many points per window. */
export interface Budget {
  bucket: 'admin' | 'test' | 'test-toolkit' | 'live' | 'test-verifications';
  subject: string;
  points: number;
  durationSeconds: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The credential a budget belongs to: the key, else the certificate's participant, else the caller's address. */
function credentialOf(req: Request, res: Response): string {
  const principal = principalOf(res);
  if (principal?.kind === 'api-key') return `key:${principal.keyId}`;
  if (principal?.kind === 'certificate') return `participant:${principal.participantId}`;
  return `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

/** Live limits belong to the participant, whichever of its credentials it uses. */
function participantOf(
  req: Request,
  res: Response,
): { subject: string; participantId: string | undefined } {
  const principal = principalOf(res);
  if (principal)
    return {
      subject: `participant:${principal.participantId}`,
      participantId: principal.participantId,
    };
  return { subject: credentialOf(req, res), participantId: undefined };
}

/** Which budget, if any, a request draws from: the rateBudget of its family in the route-family table. */
export function budgetFor(
  req: Request,
  res: Response,
  settings: RateLimitSettings,
): Budget | undefined {
  switch (requestFamily(req, res).rateBudget) {
    case 'none':
      return undefined;
    case 'admin':
      return {
        bucket: 'admin',
        subject: credentialOf(req, res),
        points: settings.adminPerMinute,
        durationSeconds: 60,
      };
    case 'sandbox-writes':
      if (settings.environment !== 'test' || !WRITE_METHODS.has(req.method)) return undefined;
      return {
        bucket: 'test',
        subject: credentialOf(req, res),
        points: settings.testPerHour,
        durationSeconds: 3600,
      };
    case 'test-toolkit':
      if (settings.environment !== 'test') return undefined;
      return {
        bucket: 'test-toolkit',
        subject: credentialOf(req, res),
        points: settings.testPerHour,
        durationSeconds: 3600,
      };
    case 'verifications': {
      // The verification families, in every environment: per participant per minute.
      const live = settings.environment === 'live';
      const limits = live
        ? settings.livePerMinute
        : (settings.testVerificationsPerMinute ?? settings.livePerMinute);
      const { subject, participantId } = participantOf(req, res);
      const perParticipant = participantId !== undefined ? limits[participantId] : undefined;
      const points = perParticipant ?? limits.default;
      if (points === undefined) return undefined;
      return { bucket: live ? 'live' : 'test-verifications', subject, points, durationSeconds: 60 };
    }
  }
}
