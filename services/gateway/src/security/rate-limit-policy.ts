import type { Request, Response } from 'express';
import { canonicalPath } from '../http/errors.js';
import { principalOf } from './principal.js';

export interface RateLimitSettings {
  environment: 'test' | 'live';
  /** Live verification budget per participant per minute; `default` for every other caller. */
  livePerMinute: Record<string, number>;
  testPerHour: number;
  adminPerMinute: number;
}

/** One budget a request draws from: which bucket, whose, how many points per window. */
export interface Budget {
  bucket: 'admin' | 'test' | 'live';
  subject: string;
  points: number;
  durationSeconds: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function isVerificationPath(path: string): boolean {
  return /^\/(verify|api\/verify|api\/v1\/|vop\/)/.test(path);
}

function isTestAccountWrite(method: string, path: string): boolean {
  return WRITE_METHODS.has(method) && /^\/(accounts|api\/accounts)(\/|$)/.test(path);
}

/** The credential a budget belongs to: the key, else the certificate's participant, else the caller's address. */
function credentialOf(req: Request, res: Response): string {
  const principal = principalOf(res);
  if (principal?.kind === 'api-key') return `key:${principal.keyId}`;
  if (principal?.kind === 'certificate') return `participant:${principal.participantId}`;
  return `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

/** Live limits belong to the participant, whichever of its credentials it uses. */
function participantOf(req: Request, res: Response): { subject: string; participantId: string | undefined } {
  const principal = principalOf(res);
  if (principal) return { subject: `participant:${principal.participantId}`, participantId: principal.participantId };
  return { subject: credentialOf(req, res), participantId: undefined };
}

/** Which budget, if any, a request draws from (design §6; test endpoints are today's account writes). */
export function budgetFor(req: Request, res: Response, settings: RateLimitSettings): Budget | undefined {
  const path = canonicalPath(req.path);
  if (path === '/admin' || path.startsWith('/admin/')) {
    return { bucket: 'admin', subject: credentialOf(req, res), points: settings.adminPerMinute, durationSeconds: 60 };
  }
  if (settings.environment === 'test' && isTestAccountWrite(req.method, path)) {
    return { bucket: 'test', subject: credentialOf(req, res), points: settings.testPerHour, durationSeconds: 3600 };
  }
  if (settings.environment === 'live' && isVerificationPath(path)) {
    const { subject, participantId } = participantOf(req, res);
    const points = (participantId !== undefined ? settings.livePerMinute[participantId] : undefined) ?? settings.livePerMinute.default;
    if (points === undefined) return undefined;
    return { bucket: 'live', subject, points, durationSeconds: 60 };
  }
  return undefined;
}
