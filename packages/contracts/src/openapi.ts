import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  AccountCreatedResponse,
  AccountResponse,
  CreateAccountRequest,
  UpdateAccountRequest,
} from './http/accounts.js';
import { FlatError, NestedError, SchemeError } from './http/errors.js';
import {
  VerificationPending,
  VerificationReceipt,
  VerificationResult,
  VerifyRequest,
} from './http/request-result.js';
import { MatchExplainRequest, MatchExplanation } from './http/matching.js';
import {
  AccountNumberBatchSubmission,
  BatchAccepted,
  BatchEntry,
  BatchId,
  BatchResults,
  BatchStatus,
  BatchSubmission,
} from './http/batches.js';
import { SchemeVerifyRequest, SchemeVerifyResponse } from './http/scheme.js';
import { z } from './zod.js';

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** The OpenAPI 3.1 document, generated from the same zod schemas the gateway validates with. */
export function buildOpenApiDocument(
  version: string,
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  const accountId = z.object({ id: z.uuid() });
  const requestId = z.object({ request_id: z.string() });

  registry.registerPath({
    method: 'post',
    path: '/vop/verify',
    summary: 'Scheme-style verification of payee',
    request: {
      body: json(SchemeVerifyRequest, 'Scheme request'),
      headers: z.object({ 'X-Request-ID': z.uuid().optional() }),
    },
    responses: {
      200: json(SchemeVerifyResponse, 'Outcome (NOAP for unknown or closed accounts)'),
      400: json(SchemeError, 'VOP_004'),
      504: json(SchemeError, 'VOP_003'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/verify',
    summary: 'Request/result verification: submit',
    request: { body: json(VerifyRequest, 'Name and IBAN') },
    responses: { 201: json(VerificationReceipt, 'Receipt'), 400: json(FlatError, 'Validation') },
  });
  registry.registerPath({
    method: 'get',
    path: '/verify/{request_id}',
    summary: 'Request/result verification: fetch',
    request: { params: requestId },
    responses: {
      200: json(VerificationResult, 'Result'),
      202: json(VerificationPending, 'Not ready; see Retry-After'),
      404: json(FlatError, 'Unknown id'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/accounts',
    summary: 'Create an account record',
    request: { body: json(CreateAccountRequest, 'Account') },
    responses: {
      201: json(AccountCreatedResponse, 'Created'),
      400: json(NestedError, 'INVALID_REQUEST'),
      409: json(NestedError, 'IBAN already held'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/accounts/{id}',
    request: { params: accountId },
    responses: {
      200: json(AccountResponse, 'Account without the holder name'),
      404: json(NestedError, 'ACCOUNT_NOT_FOUND'),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/accounts/{id}',
    request: { params: accountId, body: json(UpdateAccountRequest, 'Changes') },
    responses: {
      200: json(AccountResponse, 'Updated'),
      404: json(NestedError, 'ACCOUNT_NOT_FOUND'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/accounts/{id}',
    request: { params: accountId },
    responses: { 204: { description: 'Removed' }, 404: json(NestedError, 'ACCOUNT_NOT_FOUND') },
  });

  registry.registerPath({
    method: 'post',
    path: '/admin/matching/explain',
    summary: 'Explain how the engine compares a name with holder names (admin)',
    request: { body: json(MatchExplainRequest, 'Typed name and holder names') },
    responses: {
      200: json(MatchExplanation, 'Outcome, score and reasons'),
      400: json(FlatError, 'Validation'),
      403: json(FlatError, 'ACCESS_DENIED'),
    },
  });

  const batchId = z.object({ batchId: BatchId });
  registry.register('BatchEntry', BatchEntry);
  registry.registerPath({
    method: 'post',
    path: '/api/v1/batch',
    summary:
      'Submit a batch (form 2): JSON, or text/csv (id,iban,name) / application/x-ndjson with ?batchId=',
    request: { body: json(BatchSubmission, 'batchId and at most 10,000 {id, iban, name}') },
    responses: {
      202: json(BatchAccepted, 'Accepted (again: idempotent)'),
      400: json(FlatError, 'An entry is invalid (INVALID_IBAN, MISSING_FIELD, DUPLICATE_ENTRY_ID)'),
      409: json(FlatError, 'BATCH_CONFLICT: this batchId with other entries'),
      413: json(FlatError, 'BATCH_TOO_LARGE'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/verify/batch',
    summary: 'Submit a batch (form 1: account number and sort code)',
    request: { body: json(AccountNumberBatchSubmission, 'At most 10,000 accounts') },
    responses: { 202: json(BatchAccepted, 'Accepted'), 413: json(FlatError, 'BATCH_TOO_LARGE') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/batch/{batchId}',
    summary: 'Batch status and progress',
    request: { params: batchId },
    responses: { 200: json(BatchStatus, 'Status'), 404: json(FlatError, 'NOT_FOUND') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/batch/{batchId}/results',
    summary: 'Batch results, paged (?cursor=, ?limit=); NDJSON or CSV by Accept',
    request: { params: batchId },
    responses: {
      200: json(BatchResults, 'Results in the batch words of the outcome table'),
      202: json(BatchAccepted, 'Not ready; see Retry-After'),
      404: json(FlatError, 'NOT_FOUND'),
    },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Payee Verification Service', version },
    servers: [{ url: '/' }, { url: '/v1' }, { url: '/vop/api/v1' }],
  });
}
