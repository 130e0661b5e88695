import {
  EpcVerifyRequest,
  renderEpcResponse,
  renderRequestResultResponse,
  renderSchemeResponse,
  SchemeVerifyRequest,
  VerificationIdParam,
  VerifyRequest,
  type VerificationCompletedData,
  type VerificationRequestedData,
} from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import {
  errors,
  isAdmin,
  parseBody,
  parseParam,
  principalOf,
  requestMetadata,
  type Principal,
} from '@vop/http';
import { type FieldCipher, revealMatchedName } from '@vop/personal-data';
import {
  requestVerification,
  type RecordVerification,
  type VerificationRequestFields,
} from '@vop/verifications';
import { Router, type Response } from 'express';
import type { RequesterCheck } from '../scheme-directory/requester-check.js';
import { epcHeaderRefusal } from './epc-request-headers.js';
import { completedDataOf, findVerification, type VerificationRow } from './read-model.js';
import type { CompletionWaiters } from './waiters.js';

export interface VerificationRoutesOptions {
  store: EventStore;
  /** Records a request (event + pending row); see packages/verifications/src/recorder.ts. */
  record: RecordVerification;
  waiters: CompletionWaiters;
  /** Decrypts the disclosed holder name for the answer. */
  cipher: FieldCipher;
  /** How long a synchronous caller waits for the outcome before the timeout error (2 s by default). */
  deadlineMs: number;
  clock: () => Date;
  newId: () => string;
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

export function verificationRoutes(options: VerificationRoutesOptions): Router {
  const { store, record, waiters, cipher, deadlineMs, requesters } = options;
  const ids = { newId: options.newId, now: options.clock };
  const router = Router();

  /** The request for fields, from the participant the edge authenticated. */
  function requestFor(
    res: Response,
    fields: Omit<VerificationRequestFields, 'participant'>,
  ): VerificationRequestedData {
    const participant = principalOf(res)?.participantId;
    return requestVerification(
      { ...fields, ...(participant !== undefined && { participant }) },
      ids,
    );
  }

  /**
   * Records the request and waits for its outcome; the waiter is registered before the commit. Once
   * recorded, the answer names the verification, a timeout too: it completes and is readable later.
   */
  async function verifyNow(
    res: Response,
    request: VerificationRequestedData,
    metadata: Record<string, string>,
  ): Promise<VerificationCompletedData> {
    const completion = waiters.wait(request.verificationId, deadlineMs);
    try {
      await record({ data: request, metadata });
    } catch (error) {
      waiters.cancel(request.verificationId);
      throw error;
    }
    res.setHeader('X-Verification-ID', request.verificationId);
    const completed = await completion;
    if (!completed) throw errors.timeout('No outcome within the deadline; retry the request');
    return revealMatchedName(cipher, completed);
  }

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

  router.post('/vop/verify', async (req, res) => {
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
  });

  // EPC inter-PSP API v1.1.1: the headers, then the body, then the requester's BIC; errors in the
  // VerificationOfPayeeError structure (the epc row of the route-family table).
  router.post('/vop/v1/payee-verifications', async (req, res) => {
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
  });

  router.post('/verify', async (req, res) => {
    const body = parseBody(VerifyRequest, req.body);
    const request = requestFor(res, {
      family: 'request-result',
      iban: body.iban,
      name: body.name,
      ...(body.lei && { identification: { lei: body.lei } }),
    });
    await record({ data: request, metadata: requestMetadata(req) });
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
    const completed = completedDataOf(row);
    if (!completed) {
      res.setHeader('Retry-After', '1');
      res.status(202).json({ request_id: row.id, status: 'PENDING' });
      return;
    }
    const revealed = await revealMatchedName(cipher, completed);
    res.json(renderRequestResultResponse(revealed, new Date(row.requested_at).toISOString()));
  });

  return router;
}
