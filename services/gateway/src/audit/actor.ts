import type { Response } from 'express';
import { principalOf } from '@vop/http';

/** Who to name in the audit log: a participant or key id, never a person. */
export function auditActorOf(res: Response): string {
  const principal = principalOf(res);
  if (!principal) return 'anonymous';
  return principal.kind === 'certificate' ? principal.participantId : principal.keyId;
}
