import {
  EpcVerifyRequest,
  renderEpcResponse,
  renderRequestResultResponse,
  renderSchemeResponse,
  responderFailureOf,
  SchemeVerifyRequest,
  VerificationIdParam,
  VerifyRequest,
  type VerificationFailure,
} from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import {
  errors,
  isAdmin,
  parseBody,
  parseParam,
  principalOf,
  requestMetadata,
  type DirectRoute,
  type Principal,
  createRouter,
} from '@vop/http';
import { revealMatchedName } from '@vop/personal-data';
import { type RequestHandler, type Response, type Router } from 'express';
import type { RequesterCheck } from '../scheme-directory/requester-check.js';
import { epcHeaderRefusal } from './epc-request-headers.js';
import {
  completedDataOf,
  failedDataOf,
  findVerification,
  type VerificationRow,
} from './read-model.js';
import { synchronousVerifier, type SynchronousVerifierOptions } from './synchronous.js';

export interface VerificationRoutesOptions extends SynchronousVerifierOptions {
  store: EventStore;
  /**
   * Scheme adherence on /vop/*: the requester against the directory, the partyAgent against our BICs.
   * Without it (in-process specs) every certificate is admitted and every partyAgent is ours.
   */
  requesters?: RequesterCheck;
}

/** The participant that asked reads its result; the bank's admin reads every one. */
function mayRead(principal: Principal | undefined, row: VerificationRow): boolean {
  if (row.participant === null || isAdmin(principal)) return true;
  return principal?.participantId === row.participant;
}

const unknownVerification = () =>
  errors.notFound('NOT_FOUND', 'No verification with this request_id');

/**
 * `scheme`: the inter-PSP single checks (/vop/verify, /vop/v1/payee-verifications), no other router's
 * paths, so the gateway mounts it before every other router: the hot route is found without walking
 * the routes of every family before it. `direct`: the same two at their root paths, for the edge to
 * serve past Express's router (packages/http/src/direct-routes.ts). `others`: the request/result
 * family (POST /verify comes after families C and D, which share the path).
 */
export function verificationRoutes(options: VerificationRoutesOptions): {
  scheme: Router;
  direct: DirectRoute[];
  others: Router;
} {
  const { store, cipher, requesters } = options;
  const { requestFor, verifyNow, recordForPayeeBank } = synchronousVerifier(options);
  const scheme = createRouter();
  const router = createRouter();

  /** 401 unless the certificate's holder is a scheme participant of this environment. */
  function admitCertificate(res: Response): void {
    const refusal = requesters?.refusalOfCertificate(principalOf(res));
    if (refusal) throw refusal;
  }

  /**
   * 401 CLIENT_INCONSISTENT when the requestingAgent BIC is not the certificate holder's; false when
   * the partyAgent is not one of ours (answered NOAP without asking matching, as the EPC FAQ advises).
   */
  function admitRequest(res: Response, requestingBic: string, partyAgentBic: string): boolean {
    const refusal = requesters?.refusalOfRequestingAgent(principalOf(res), requestingBic);
    if (refusal) throw refusal;
    return requesters?.isOurBic(partyAgentBic) ?? true;
  }

  const verifyScheme: RequestHandler = async (req, res) => {
    admitCertificate(res);
    const body = parseBody(SchemeVerifyRequest, req.body);
    const identification = body.party.identification;
    const requestingAgentBic = body.requestingAgent.financialInstitutionId.bicfi;
    const partyAgentBic = body.partyAgent.financialInstitutionId.bicfi;
    if (!admitRequest(res, requestingAgentBic, partyAgentBic)) {
      res.json({ partyNameMatch: 'NOAP', ...(identification && { idMatch: 'NOAP' }) });
      return;
    }
    const request = requestFor(res, {
      family: 'scheme',
      iban: body.partyAccount.iban,
      name: body.party.name,
      ...(identification && { identification }),
      requestingAgentBic,
      partyAgentBic,
    });
    const completed = await verifyNow(res, request, requestMetadata(req));
    res.json(renderSchemeResponse(completed));
  };
  scheme.post('/vop/verify', verifyScheme);

  // EPC inter-PSP API v1.1.1: the headers, then the body, then the requester's BIC; errors in the
  // VerificationOfPayeeError structure (the epc row of the route-family table).
  const verifyEpc: RequestHandler = async (req, res) => {
    admitCertificate(res);
    const headerRefusal = epcHeaderRefusal((name) => req.get(name), options.clock());
    if (headerRefusal) throw headerRefusal;
    const body = parseBody(EpcVerifyRequest, req.body);
    const { name, identification } = body.party;
    const requestingAgentBic = body.requestingAgent.financialInstitutionId.bicfi;
    const partyAgentBic = body.partyAgent.financialInstitutionId.bicfi;
    if (!admitRequest(res, requestingAgentBic, partyAgentBic)) {
      res.json({
        ...(name !== undefined && { partyNameMatch: 'NOAP' }),
        ...(identification && { partyIdMatch: 'NOAP' }),
      });
      return;
    }
    const request = requestFor(res, {
      family: 'epc',
      iban: body.partyAccount.iban,
      ...(name !== undefined && { name }),
      ...(identification && { identification }),
      requestingAgentBic,
      partyAgentBic,
    });
    const completed = await verifyNow(res, request, requestMetadata(req));
    res.json(renderEpcResponse(completed, name !== undefined, identification !== undefined));
  };
  scheme.post('/vop/v1/payee-verifications', verifyEpc);

  router.post('/verify', async (req, res) => {
    const body = parseBody(VerifyRequest, req.body);
    const request = requestFor(res, {
      family: 'request-result',
      iban: body.iban,
      name: body.name,
      ...(body.lei && { identification: { lei: body.lei } }),
      ...(body.bic && { partyAgentBic: body.bic }),
    });
    await recordForPayeeBank(request, requestMetadata(req));
    res
      .status(201)
      .json({ request_id: request.verificationId, message: 'Verification request accepted' });
  });

  // One route with whole templates: a nested router would leave metrics only '/:requestId' on errors.
  router.get(['/verify/:requestId', '/api/verify/:requestId'], async (req, res) => {
    const id = parseParam(VerificationIdParam, req.params.requestId, unknownVerification);
    const row = await findVerification(store.sql, store.schema, id);
    // Another participant's verification is not found, as if it did not exist.
    if (!row || !mayRead(principalOf(res), row)) throw unknownVerification();
    const requestedAt = new Date(row.requested_at).toISOString();
    const failed = failedDataOf(row);
    if (failed) {
      res.json({
        request_id: row.id,
        status: 'FAILED',
        reason: failed.reason,
        failed_at: failed.failedAt,
        created_at: requestedAt,
      } satisfies VerificationFailure);
      return;
    }
    const completed = completedDataOf(row);
    if (!completed) {
      res.setHeader('Retry-After', '1');
      res.status(202).json({ request_id: row.id, status: 'PENDING' });
      return;
    }
    // The payee's bank could not answer: the family's FAILED form, never a NO_MATCH a payer would
    // read as "wrong name".
    const responderFailure = responderFailureOf(completed.reasons);
    if (completed.outcome === 'NOAP' && responderFailure !== undefined) {
      res.json({
        request_id: row.id,
        status: 'FAILED',
        reason: responderFailure,
        ...(completed.routedTo && { routed_to: completed.routedTo }),
        failed_at: completed.completedAt,
        created_at: requestedAt,
      } satisfies VerificationFailure);
      return;
    }
    const revealed = await revealMatchedName(cipher, completed);
    res.json(renderRequestResultResponse(revealed, requestedAt));
  });

  const direct: DirectRoute[] = [
    { method: 'POST', path: '/vop/verify', handler: verifyScheme },
    { method: 'POST', path: '/vop/v1/payee-verifications', handler: verifyEpc },
  ];
  return { scheme, direct, others: router };
}
