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
import { SchemeVerifyRequest, SchemeVerifyResponse } from './http/scheme.js';
import { EpcError, EpcRequestHeaders, EpcVerifyRequest, EpcVerifyResponse } from './http/epc.js';
import { SchemeDirectorySnapshot, SchemeDirectoryVersion } from './http/scheme-directory.js';
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
      401: json(
        SchemeError,
        'VOP_002 (reason: certificate refusal, CLIENT_INVALID, CLIENT_INCONSISTENT)',
      ),
      504: json(SchemeError, 'VOP_003'),
    },
  });
  const epcResponseHeaders = z.object({
    'X-Request-ID': z.string().openapi({ description: "The request's X-Request-ID, echoed" }),
    'X-Response-Timestamp': z.iso
      .datetime()
      .openapi({ description: 'ISO 8601, milliseconds, UTC' }),
  });
  const epcAnswer = <T extends z.ZodType>(schema: T, description: string) => ({
    ...json(schema, description),
    headers: epcResponseHeaders,
  });
  registry.registerPath({
    method: 'post',
    path: '/vop/v1/payee-verifications',
    summary: 'EPC inter-PSP API v1.1.1 (EPC103-24): verification of payee, responding side',
    description:
      'Mutual TLS with a QWAC whose PSD2 authorisation number and the requestingAgent BIC are an ' +
      'adherent pair of the scheme directory. A partyAgent that is not ours, or an IBAN we do not hold, is 200 NOAP.',
    request: {
      body: json(EpcVerifyRequest, 'Name and/or identification; Latin characters; no empty field'),
      headers: EpcRequestHeaders,
    },
    responses: {
      200: epcAnswer(EpcVerifyResponse, 'Outcome; matchedName only on CMTC'),
      400: epcAnswer(EpcError, 'FORMAT_ERROR or TIMESTAMP_INVALID'),
      401: epcAnswer(EpcError, 'CLIENT_INVALID or CLIENT_INCONSISTENT'),
      500: epcAnswer(EpcError, 'The responder failed (timeouts and overload included)'),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/admin/scheme-directory',
    summary: 'Load the scheme directory: the whole snapshot replaces the previous one (admin)',
    request: {
      body: json(SchemeDirectorySnapshot, 'Directory file'),
      headers: z.object({ 'If-Match': z.string().optional() }),
    },
    responses: {
      200: json(SchemeDirectoryVersion, 'The version now served'),
      400: json(FlatError, 'Validation'),
      403: json(FlatError, 'ACCESS_DENIED'),
      409: json(FlatError, 'VERSION_MISMATCH (If-Match)'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/scheme-directory',
    summary: 'The scheme directory version served (admin)',
    responses: {
      200: json(SchemeDirectoryVersion, 'Version'),
      404: json(FlatError, 'No directory loaded'),
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

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Payee Verification Service', version },
    servers: [{ url: '/' }, { url: '/v1' }, { url: '/vop/api/v1' }],
  });
}
