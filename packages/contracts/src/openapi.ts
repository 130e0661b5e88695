import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  AccountCreatedResponse,
  AccountResponse,
  TestAccountCreatedResponse,
  CreateAccountRequest,
  UpdateAccountRequest,
} from './http/accounts.js';
import { FlatError, NestedError, SchemeError } from './http/errors.js';
import {
  VerificationFailure,
  VerificationPending,
  VerificationReceipt,
  VerificationResult,
  VerifyRequest,
} from './http/request-result.js';
import { MatchExplainRequest, MatchExplanation } from './http/matching.js';
import {
  AccountHistoryQuery,
  AccountHistoryResponse,
  AccountStatusResponse,
  MatchRatesQuery,
  MatchRatesReport,
  RecentVerificationsQuery,
  RecentVerificationsResponse,
  StatsQuery,
  StatsResponse,
  UsageQuery,
  UsageReport,
} from './http/analytics.js';
import {
  AccountNumberBatchSubmission,
  AccountNumberEntry,
  BatchAccepted,
  BatchEntry,
  BatchId,
  BatchResults,
  BatchStatus,
  BatchSubmission,
} from './http/batches.js';
import { SchemeVerifyRequest, SchemeVerifyResponse } from './http/scheme.js';
import { EpcError, EpcRequestHeaders, EpcVerifyRequest, EpcVerifyResponse } from './http/epc.js';
import {
  BankCodeTableQuery,
  BankCodeTableVersion,
  SchemeDirectorySnapshot,
  SchemeDirectoryVersion,
} from './http/scheme-directory.js';
import { AccountNumberVerifyRequest, AccountNumberVerifyResponse } from './http/account-number.js';
import {
  ApiKeyList,
  AuditPage,
  AuditQuery,
  IssuedApiKey,
  IssueApiKeyRequest,
} from './http/admin.js';
import { ImmediateVerifyResponse, SimpleVerifyResponse } from './http/immediate.js';
import { registerWebhookPaths } from './openapi-webhooks.js';
import { registerTestToolkitPaths } from './openapi-test-toolkit.js';
import { AccountImportRecord, AccountImportResponse } from './http/account-import.js';
import { json } from './openapi-content.js';
import { z } from './zod.js';

/** The OpenAPI 3.1 document, generated from the same zod schemas the gateway validates with. */
export function buildOpenApiDocument(
  version: string,
): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  const accountId = z.object({ id: z.uuid() });
  const requestId = z.object({
    request_id: z
      .string()
      .regex(/^(vrf_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  });

  registry.registerPath({
    method: 'post',
    path: '/vop/verify',
    summary: 'Scheme-style verification of payee',
    request: {
      body: json(SchemeVerifyRequest, 'Scheme request'),
      // Echoed as metadata.originalRequest; callers send a UUID, any short string is accepted.
      headers: z.object({ 'X-Request-ID': z.string().optional() }),
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
      headers: z.object({
        'If-Match': z
          .string()
          .regex(/^(W\/)?("[0-9]{1,9}"|[0-9]{1,9})$/)
          .optional()
          .openapi({ description: 'The directory version this load replaces (0: the first)' }),
      }),
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
    method: 'put',
    path: '/admin/bank-codes',
    summary:
      "Load the bank-code table (country, national bank code, BIC): a payee's bank from its IBAN (admin)",
    request: {
      query: BankCodeTableQuery,
      headers: z.object({
        'If-Match': z
          .string()
          .regex(/^(W\/)?("[0-9]{1,9}"|[0-9]{1,9})$/)
          .optional()
          .openapi({ description: 'The table version this load replaces (0: the first)' }),
      }),
      body: {
        description:
          'An optional header line country,bank_code,bic, then one row per bank code (at most 200,000); ' +
          'the bank code as the IBAN of the country carries it',
        content: {
          'text/csv': {
            schema: z
              .string()
              .openapi({ example: 'country,bank_code,bic\nDE,10070000,DEUTDEBBXXX\n' }),
          },
        },
      },
    },
    responses: {
      200: json(BankCodeTableVersion, 'The version now served'),
      400: json(
        FlatError,
        'INVALID_REQUEST: field "line <n>", the first 20 problems in the message',
      ),
      403: json(FlatError, 'ACCESS_DENIED'),
      409: json(FlatError, 'VERSION_MISMATCH (If-Match)'),
      415: json(FlatError, 'UNSUPPORTED_MEDIA_TYPE: the body is not text/csv'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/bank-codes',
    summary: 'The bank-code table version served (admin)',
    responses: {
      200: json(BankCodeTableVersion, 'Version'),
      404: json(FlatError, 'No table loaded'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/verify',
    summary:
      'Request/result verification (name and IBAN), or account-number verification (family D)',
    request: {
      body: json(
        z.union([VerifyRequest, AccountNumberVerifyRequest]),
        'Name and IBAN (answered 201 with a receipt), or account number, sort code and name (answered at once)',
      ),
    },
    responses: {
      200: json(AccountNumberVerifyResponse, 'Family D: match, suggested name, confidence, status'),
      201: json(VerificationReceipt, 'Family B: receipt'),
      400: json(FlatError, 'Validation'),
      504: json(FlatError, 'Family D: no outcome within the deadline'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/verify',
    summary:
      'Immediate verification (family C); with Prefer: respond-async, the receipt of family B',
    request: {
      body: json(VerifyRequest, 'Name and IBAN'),
      headers: z.object({ Prefer: z.string().optional() }),
    },
    responses: {
      200: json(ImmediateVerifyResponse, 'Outcome at once'),
      201: json(VerificationReceipt, 'Receipt (Prefer: respond-async)'),
      400: json(FlatError, 'Validation'),
      504: json(FlatError, 'No outcome within the deadline'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/verify',
    summary: 'Simple verification (family C)',
    request: { body: json(VerifyRequest, 'Name and IBAN') },
    responses: {
      200: json(SimpleVerifyResponse, 'Result and confidence words'),
      400: json(FlatError, 'Validation'),
      504: json(FlatError, 'No outcome within the deadline'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/verify/{request_id}',
    summary: 'Request/result verification: fetch',
    request: { params: requestId },
    responses: {
      200: json(z.union([VerificationResult, VerificationFailure]), 'Result, or the failure'),
      202: json(VerificationPending, 'Not ready; see Retry-After'),
      404: json(FlatError, 'Unknown id'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/verify/{request_id}',
    summary: 'Request/result verification: fetch',
    request: { params: requestId },
    responses: {
      200: json(z.union([VerificationResult, VerificationFailure]), 'Result, or the failure'),
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
      409: json(NestedError, 'IBAN or domestic account already held by another live account'),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/accounts/{id}',
    request: { params: accountId },
    responses: {
      200: json(
        z.object({ status: z.literal('deleted'), message: z.string() }),
        'A test account (its acc_… id; test deployments) deleted',
      ),
      204: { description: 'Removed' },
      404: json(NestedError, 'ACCOUNT_NOT_FOUND'),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/api/accounts',
    summary: 'Create a test account (test deployments only; id acc_…)',
    request: { body: json(CreateAccountRequest, 'Account') },
    responses: {
      201: json(TestAccountCreatedResponse, 'Created'),
      409: json(NestedError, 'IBAN already held'),
    },
  });

  const operational = z.looseObject({ status: z.string() });
  for (const [path, summary] of [
    ['/livez', 'Liveness: the process answers'],
    ['/readyz', 'Readiness: database, broker, outbox relays (503 while not ready)'],
    ['/health', 'Health with version and uptime'],
  ] as const) {
    registry.registerPath({
      method: 'get',
      path,
      summary,
      responses: { 200: json(operational, 'Status') },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text exposition format)',
    responses: {
      200: { description: 'Metrics', content: { 'text/plain': { schema: z.string() } } },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/health/detailed',
    summary: 'Dependencies, topics and outbox lag (admin)',
    responses: { 200: json(z.looseObject({}), 'Detailed health') },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/api-keys',
    summary: 'Issue an API key (the secret is shown once)',
    request: { body: json(IssueApiKeyRequest, 'Participant, scopes, environment') },
    responses: { 201: json(IssuedApiKey, 'Issued') },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/api-keys',
    summary: 'List API keys (no secrets)',
    responses: { 200: json(ApiKeyList, 'Keys') },
  });
  registry.registerPath({
    method: 'delete',
    path: '/admin/api-keys/{keyId}',
    summary: 'Revoke an API key',
    request: { params: z.object({ keyId: z.string().regex(/^key_[A-Za-z0-9_-]{1,64}$/) }) },
    responses: {
      200: json(z.object({ keyId: z.string(), revoked: z.literal(true) }), 'Revoked'),
      404: json(FlatError, 'Unknown key'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/accounts/{id}/erasure',
    summary: "Erase an account holder's personal data (crypto-shredding)",
    request: { params: accountId },
    responses: {
      200: json(z.object({ accountId: z.uuid(), erased: z.literal(true) }), 'Erased'),
      404: json(FlatError, 'Unknown account'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/audit',
    summary: 'The audit log, newest first, paged by cursor',
    request: { query: AuditQuery },
    responses: { 200: json(AuditPage, 'Entries') },
  });
  const html = (description: string) => ({
    description,
    content: { 'text/html': { schema: z.string() } },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin',
    summary: "The operators' dashboard (a page; admin certificate)",
    responses: { 200: html('Dashboard') },
  });
  registry.registerPath({
    method: 'get',
    path: '/test',
    summary: 'Try a verification (a page; test deployments only)',
    responses: { 200: html('Test page'), 404: json(NestedError, 'Not in a live deployment') },
  });
  registry.registerPath({
    method: 'get',
    path: '/assets/{file}',
    summary: "The pages' own scripts, styles and chart library",
    request: { params: z.object({ file: z.string().regex(/^[a-z0-9.-]{1,64}$/) }) },
    responses: {
      200: { description: 'A static file', content: { '*/*': { schema: z.string() } } },
      404: json(NestedError, 'No such file'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/reset-test-data',
    summary: 'Remove every account record (test deployments only; admin)',
    responses: {
      200: json(
        z.looseObject({ status: z.literal('reset'), accountsRemoved: z.number() }),
        'Reset',
      ),
      404: json(FlatError, 'Not in a live deployment'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/import-test-data',
    summary: 'Load the reference accounts with known outcomes (test deployments only; admin)',
    responses: {
      200: json(z.looseObject({ status: z.literal('imported'), imported: z.number() }), 'Imported'),
      404: json(FlatError, 'Not in a live deployment'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/accounts/import',
    summary:
      "Bulk import of the bank's account records, streamed: NDJSON (one AccountImportRecord per line) or CSV",
    request: {
      query: z.object({ importId: z.uuid().optional() }),
      body: {
        description: 'Records; each row is validated on its own and refused rows are reported',
        content: {
          'application/x-ndjson': { schema: z.string() },
          // The header names the columns (iban and name first); rows follow.
          'text/csv': {
            schema: z
              .string()
              .regex(/^iban,name(,holderType)?(,alternateNames)?(,identifiers)?(,status)?\r?\n/),
          },
        },
      },
    },
    responses: {
      201: json(AccountImportResponse, 'The import, finished: counts and row errors'),
      400: json(FlatError, 'INVALID_IMPORT (e.g. a CSV header without iban and name)'),
      409: json(FlatError, 'An import with this importId exists'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/accounts/import/{importId}',
    summary: 'An import: status, counts, row errors',
    request: { params: z.object({ importId: z.uuid() }) },
    responses: {
      200: json(AccountImportResponse, 'The import'),
      404: json(FlatError, 'No such import'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: json(z.looseObject({ openapi: z.string() }), 'OpenAPI 3.1') },
  });
  registry.registerPath({
    method: 'get',
    path: '/docs',
    summary: 'This document, readable (a page)',
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
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

  registerWebhookPaths(registry);
  registerTestToolkitPaths(registry);
  const analyticsErrors = {
    400: json(NestedError, 'INVALID_REQUEST naming the parameter'),
    403: json(NestedError, 'ACCESS_DENIED: the admin certificate or an analytics key'),
  };
  registry.registerPath({
    method: 'get',
    path: '/analytics/usage',
    summary: 'Verification counts per period by family and outcome, with totals',
    request: { query: UsageQuery },
    responses: { 200: json(UsageReport, 'Usage'), ...analyticsErrors },
  });
  registry.registerPath({
    method: 'get',
    path: '/analytics/match-rates',
    summary:
      'MTCH / CMTC / NMTC / NOAP counts and shares per period; by=responding_bank: per payee bank too',
    request: { query: MatchRatesQuery },
    responses: { 200: json(MatchRatesReport, 'Match rates'), ...analyticsErrors },
  });
  const accountParam = z.object({
    accountId: z
      .string()
      .regex(
        /^(acc_)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
      ),
  });
  registry.registerPath({
    method: 'get',
    path: '/account/{accountId}/status',
    summary: 'Whether the account is active and available',
    request: { params: accountParam },
    responses: {
      200: json(AccountStatusResponse, 'Status'),
      404: json(NestedError, 'ACCOUNT_NOT_FOUND'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/account/{accountId}/history',
    summary: "The account's verifications, newest first (no typed names)",
    request: { params: accountParam, query: AccountHistoryQuery },
    responses: {
      200: json(AccountHistoryResponse, 'History'),
      404: json(NestedError, 'ACCOUNT_NOT_FOUND'),
      ...analyticsErrors,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/stats',
    summary: 'Request figures, uptime and version (admin)',
    request: { query: StatsQuery },
    responses: { 200: json(StatsResponse, 'Statistics'), 403: json(FlatError, 'ACCESS_DENIED') },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/verifications',
    summary: 'Recent verifications, names and IBANs masked (admin)',
    request: { query: RecentVerificationsQuery },
    responses: {
      200: json(RecentVerificationsResponse, 'Recent verifications'),
      403: json(FlatError, 'ACCESS_DENIED'),
    },
  });
  const batchId = z.object({ batchId: BatchId });
  registry.register('BatchEntry', BatchEntry);
  registry.register('AccountImportRecord', AccountImportRecord);
  registry.register('AccountNumberEntry', AccountNumberEntry);
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
    summary:
      "Batch results, paged (?cursor=, ?limit=); NDJSON or CSV by Accept. In CSV a cell that begins with =, +, -, @, a tab or a carriage return is written with a leading ' and quoted (OWASP CSV injection)",
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
