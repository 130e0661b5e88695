import { MatchExplainRequest, type MatchExplanation } from '@vop/contracts';
import { parseBody, createRouter } from '@vop/http';
import type { NameMatcher } from '@vop/name-matching';
import { type Router } from 'express';

/**
 * The matching service's own family (matching-management in packages/http/src/route-families.ts):
 * an operator checks how the engine compares a typed name with holder names, e.g. to answer a
 * complaint, without touching stored accounts. Reached through the gateway's edge.
 */
export function explainRoutes(matcher: NameMatcher): Router {
  const router = createRouter();
  router.post('/admin/matching/explain', (req, res) => {
    const body = parseBody(MatchExplainRequest, req.body);
    const result = matcher.match(body.name, {
      names: body.holderNames,
      ...(body.holderType && { holderType: body.holderType }),
    });
    const explanation: MatchExplanation = {
      outcome: result.outcome,
      score: result.score,
      ...(result.matchedName !== undefined && { matchedName: result.matchedName }),
      reasons: result.reasons,
    };
    res.json(explanation);
  });
  return router;
}
