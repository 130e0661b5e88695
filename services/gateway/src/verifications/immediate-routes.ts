import { renderImmediateResponse, renderSimpleResponse, VerifyRequest } from '@vop/contracts';
import { parseBody, requestMetadata, createRouter } from '@vop/http';
import { type Request, type Router } from 'express';
import type { SynchronousVerifier } from './synchronous.js';

/** RFC 7240: `Prefer: respond-async` asks for the receipt of family B instead of the answer at once. */
function prefersAsync(req: Request): boolean {
  return (req.get('prefer') ?? '').split(',').some(
    (preference) =>
      preference
        .trim()
        .toLowerCase()
        .split(/[\s;=]/)[0] === 'respond-async',
  );
}

/**
 * Family C (design §4 "Collisions"): `POST /api/verify` answers at once in the production form, or with
 * the request/result receipt when the caller prefers it; `POST /api/v1/verify` answers the simple form.
 * Both are verifications like any other: recorded as events, readable by id at `GET /verify/{id}`.
 */
export function immediateVerificationRoutes(verifier: SynchronousVerifier): Router {
  const { requestFor, verifyAtPayeeBank, recordForPayeeBank } = verifier;
  const router = createRouter();

  router.post('/api/verify', async (req, res) => {
    const body = parseBody(VerifyRequest, req.body);
    const fields = {
      iban: body.iban,
      name: body.name,
      ...(body.lei && { identification: { lei: body.lei } }),
      ...(body.bic && { partyAgentBic: body.bic }),
    };
    if (prefersAsync(req)) {
      const request = requestFor(res, { ...fields, family: 'request-result' });
      await recordForPayeeBank(request, requestMetadata(req));
      res
        .status(201)
        .setHeader('Preference-Applied', 'respond-async')
        .json({ request_id: request.verificationId, message: 'Verification request accepted' });
      return;
    }
    const request = requestFor(res, { ...fields, family: 'immediate' });
    const completed = await verifyAtPayeeBank(res, request, requestMetadata(req));
    res.json(renderImmediateResponse(completed));
  });

  router.post('/api/v1/verify', async (req, res) => {
    const body = parseBody(VerifyRequest, req.body);
    const request = requestFor(res, {
      family: 'simple',
      iban: body.iban,
      name: body.name,
      ...(body.lei && { identification: { lei: body.lei } }),
      ...(body.bic && { partyAgentBic: body.bic }),
    });
    const completed = await verifyAtPayeeBank(res, request, requestMetadata(req));
    res.json(renderSimpleResponse(completed));
  });

  return router;
}
