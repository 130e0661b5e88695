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
    summary: 'MTCH / CMTC / NMTC / NOAP counts and shares per period',
    request: { query: MatchRatesQuery },
    responses: { 200: json(MatchRatesReport, 'Match rates'), ...analyticsErrors },
  });
  const accountParam = z.object({ accountId: z.string() });
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

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Payee Verification Service', version },
    servers: [{ url: '/' }, { url: '/v1' }, { url: '/vop/api/v1' }],
  });
}
