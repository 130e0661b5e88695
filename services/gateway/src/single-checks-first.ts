import type { RequestListener } from 'node:http';
import { familyFor } from '@vop/http';
import type { PriorityGate } from '@vop/messaging';

const SINGLE_CHECK_FAMILIES = new Set(['scheme', 'epc', 'immediate', 'simple', 'request-result']);

/**
 * The gateway's edge: a single check holds the gate's high priority from its request until its
 * response is done, so batch, bulk import and (embedded) background work yield to it in this process.
 */
export function singleChecksFirst(gate: PriorityGate, app: RequestListener): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'POST' || !SINGLE_CHECK_FAMILIES.has(familyFor(path, req.method).name)) {
      app(req, res);
      return;
    }
    void gate.high(
      () =>
        new Promise<void>((resolve) => {
          res.once('close', resolve);
          app(req, res);
        }),
    );
  };
}
