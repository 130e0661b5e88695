import { randomUUID } from 'node:crypto';
import { EpcVerifyRequest, SchemeVerifyRequest, VerificationIdParam, type VerificationCompletedData, type VerificationRequestedData, VerifyRequest } from '@vop/contracts';
import type { EventStore } from '@vop/event-store';
import { Router } from 'express';
import { errors } from '../http/errors.js';
import { requestMetadata } from '../http/request-context.js';
import { parseBody, parseParam } from '../http/validation.js';
import { completedDataOf, findVerification } from './read-model.js';
import type { VerificationRequest } from './request.js';
import { epcResponse, requestResultResponse, schemeResponse } from './responses.js';
import type { CompletionWaiters } from './waiters.js';
import type { FieldCipher } from '@vop/personal-data';
import { revealCompletion } from '../personal-data.js';

export interface VerificationRoutesOptions {
  store: EventStore;
  /** Records a request (event + pending row); see verificationRecorder. */
  record: (request: VerificationRequest) => Promise<void>;
  waiters: CompletionWaiters;
  /** Decrypts the disclosed holder name for the answer. */
  cipher: FieldCipher;
  /** How long a synchronous caller waits for the outcome before the timeout error (design §4: 2 s). */
  deadlineMs: number;
}

function newRequest(fields: Omit<VerificationRequestedData, 'verificationId' | 'requestedAt'>): VerificationRequestedData {
  return { ...fields, verificationId: randomUUID(), requestedAt: new Date().toISOString() };
}

const unknownVerification = () => errors.notFound('NOT_FOUND', 'No verification with this request_id');

export function verificationRoutes({ store, record, waiters, cipher, deadlineMs }: VerificationRoutesOptions): Router {
  const router = Router();

  /** Records the request and waits for its outcome; the waiter is registered before the commit. */
  async function verifyNow(request: VerificationRequestedData, metadata: Record<string, string>): Promise<VerificationCompletedData> {
    const completion = waiters.wait(request.verificationId, deadlineMs);
    try {
      await record({ data: request, metadata });
    } catch (error) {
      waiters.cancel(request.verificationId);
      throw error;
    }
    const completed = await completion;
    if (!completed) throw errors.timeout('No outcome within the deadline; retry the request');
    return revealCompletion(cipher, completed);
  }

  router.post('/vop/verify', async (req, res) => {
    const body = parseBody(SchemeVerifyRequest, req.body);
    const identification = body.party.identification;
    const request = newRequest({
      family: 'scheme',
      iban: body.partyAccount.iban,
      name: body.party.name,
      ...(identification && { identification }),
      requestingAgentBic: body.requestingAgent.financialInstitutionId.bicfi,
      partyAgentBic: body.partyAgent.financialInstitutionId.bicfi,
    });
    const completed = await verifyNow(request, requestMetadata(req));
    res.setHeader('X-Verification-ID', request.verificationId);
    res.json(schemeResponse(completed));
  });

  router.post('/vop/v1/payee-verifications', async (req, res) => {
    const body = parseBody(EpcVerifyRequest, req.body);
    const { name, identification } = body.party;
    const request = newRequest({
      family: 'epc',
      iban: body.partyAccount.iban,
      ...(name !== undefined && { name }),
      ...(identification && { identification }),
      requestingAgentBic: body.requestingAgent.financialInstitutionId.bicfi,
      partyAgentBic: body.partyAgent.financialInstitutionId.bicfi,
    });
    const completed = await verifyNow(request, requestMetadata(req));
    res.setHeader('X-Verification-ID', request.verificationId);
    res.json(epcResponse(completed, name !== undefined));
  });

  router.post('/verify', async (req, res) => {
    const body = parseBody(VerifyRequest, req.body);
    const request = newRequest({
      family: 'request-result',
      iban: body.iban,
      name: body.name,
      ...(body.lei && { identification: { lei: body.lei } }),
    });
    await record({ data: request, metadata: requestMetadata(req) });
    res.status(201).json({ request_id: request.verificationId, message: 'Verification request accepted' });
  });

  const getResult = Router().get('/:requestId', async (req, res) => {
    const id = parseParam(VerificationIdParam, req.params.requestId, unknownVerification);
    const row = await findVerification(store.sql, store.schema, id);
    if (!row) throw unknownVerification();
    const completed = completedDataOf(row);
    if (!completed) {
      res.setHeader('Retry-After', '1');
      res.status(202).json({ request_id: row.id, status: 'PENDING' });
      return;
    }
    res.json(requestResultResponse(await revealCompletion(cipher, completed), new Date(row.requested_at).toISOString()));
  });
  router.use('/verify', getResult);
  router.use('/api/verify', getResult);

  return router;
}
