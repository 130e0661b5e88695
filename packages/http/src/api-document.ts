import { buildOpenApiDocument } from '@vop/contracts';
import { familyFor, ROUTE_FAMILIES, type Access, type RouteFamily } from './route-families.js';

type Document = ReturnType<typeof buildOpenApiDocument>;
type Operation = Record<string, unknown> & {
  responses?: Record<string, unknown>;
  requestBody?: unknown;
  security?: Array<Record<string, string[]>>;
};

const ERROR_SCHEMAS = {
  nested: 'NestedError',
  flat: 'FlatError',
  scheme: 'SchemeError',
  epc: 'VerificationOfPayeeError',
} as const;

const errorResponse = (family: RouteFamily, description: string) => ({
  description,
  content: {
    'application/json': {
      schema: { $ref: `#/components/schemas/${ERROR_SCHEMAS[family.errorFormat]}` },
    },
  },
});

/** Answers the edge gives for every operation of a family (packages/http/src/app.ts, access.ts, the gateway's edge). */
function edgeResponses(family: RouteFamily, hasBody: boolean): Record<string, unknown> {
  // The EPC API answers only 400, 401 and 500; the edge maps every other status onto them (errors.ts).
  if (family.errorFormat === 'epc')
    return {
      400: errorResponse(family, 'FORMAT_ERROR or TIMESTAMP_INVALID'),
      401: errorResponse(family, 'CLIENT_INVALID or CLIENT_INCONSISTENT'),
      500: errorResponse(family, 'The responder failed'),
    };
  const responses: Record<string, unknown> = {
    400: errorResponse(family, 'Validation failed: names the field (and the reason)'),
    500: errorResponse(family, 'INTERNAL_ERROR'),
    503: errorResponse(
      family,
      'SERVICE_UNAVAILABLE (Retry-After, seconds): not ready, or past the deadline',
    ),
  };
  if (family.errorFormat === 'scheme') responses[504] = errorResponse(family, 'VOP_003: timeout');
  if (family.access !== 'open') {
    responses[401] = errorResponse(family, 'No or invalid credential');
    responses[403] = errorResponse(family, 'ACCESS_DENIED: this credential may not use it');
  }
  if (family.rateBudget !== 'none')
    responses[429] = errorResponse(family, 'RATE_LIMIT_EXCEEDED (Retry-After, seconds)');
  if (hasBody) {
    responses[413] = errorResponse(family, 'Body over 1 MiB');
    responses[415] = errorResponse(family, 'Not application/json');
  }
  return responses;
}

/** Who may call, as OpenAPI security requirements: mutual TLS always; an API key where the family takes one. */
function securityOf(family: RouteFamily): Array<Record<string, string[]>> {
  if (family.access === 'open') return [];
  const requirements: Array<Record<string, string[]>> = [{ mutualTLS: [] }];
  if (family.apiKeyScope !== null) requirements.push({ apiKey: [family.apiKeyScope] });
  return requirements;
}

const CALLERS: Record<Access, string> = {
  open: 'anyone, no credential',
  participant: 'any participant, by certificate or API key',
  'participant-certificate': "a scheme participant's client certificate",
  'account-records': 'the admin certificate or an API key with the accounts scope',
  admin: 'the admin certificate',
  analysts: 'the admin certificate or an API key with the analytics scope',
  scraper: 'a client certificate (a metrics scraper)',
  nobody: 'nobody',
};

/** One tag per route family, in the table's order: the docs page groups its operations by them. */
function familyTags(used: ReadonlySet<string>) {
  return ROUTE_FAMILIES.filter((family) => used.has(family.name)).map((family) => ({
    name: family.name,
    description: `Paths ${family.paths.map((each) => `\`${each}\``).join(', ')}. Callers: ${CALLERS[family.access]}. Errors in the ${family.errorFormat} format; served by ${family.owner === 'each' ? 'every service' : `the ${family.owner} service`}.`,
  }));
}

/** What a live deployment does not mount (services/gateway/src/service.ts): it answers them 404. */
const TEST_DEPLOYMENT_FAMILIES = new Set(['test-toolkit', 'sandbox-accounts', 'test-data']);
/** The test page shares the pages family with pages a live deployment serves. */
const TEST_DEPLOYMENT_PATHS = new Set(['/test']);

/**
 * The served OpenAPI document: the operations and bodies generated from the zod contracts
 * (packages/contracts/src/openapi.ts), completed from the route-family table with what the edge answers
 * for every operation (credentials, budgets, limits, deadlines), the security each family requires and
 * its family as the operation's tag, so the document lists every status an operation can answer. A live
 * deployment's document leaves out what only a test deployment serves.
 */
export function servedApiDocument(
  version: string,
  options: { environment?: 'test' | 'live' } = {},
): Document {
  const document = buildOpenApiDocument(version);
  const used = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item as Record<string, Operation>)) {
      if (typeof value !== 'object' || value === null || !('responses' in value)) continue;
      const samplePath = path.replace(/\{[^}]+\}/g, 'x');
      const family = familyFor(samplePath, method.toUpperCase());
      if (
        options.environment === 'live' &&
        (TEST_DEPLOYMENT_FAMILIES.has(family.name) || TEST_DEPLOYMENT_PATHS.has(path))
      ) {
        delete (item as Record<string, unknown>)[method];
        continue;
      }
      used.add(family.name);
      const operation = value as Operation;
      operation.tags = [family.name];
      // Every body the service takes is required: a request without one is refused (400).
      if (typeof operation.requestBody === 'object' && operation.requestBody !== null)
        (operation.requestBody as { required?: boolean }).required = true;
      operation.responses = {
        ...edgeResponses(family, operation.requestBody !== undefined),
        ...operation.responses,
      };
      operation.security = securityOf(family);
      operation['x-route-family'] = family.name;
    }
    if (Object.keys(item as object).length === 0) delete document.paths?.[path];
  }
  document.tags = familyTags(used);
  document.components = {
    ...document.components,
    securitySchemes: {
      // OpenAPI 3.1's mutualTLS type; the generator's types predate it.
      mutualTLS: {
        type: 'mutualTLS' as 'http',
        description:
          'A client certificate from a CA in VOP_TLS_CA: a participant (its organizationIdentifier) or the admin certificate',
      },
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description:
          'vop_test_… / vop_live_… keys with scopes (verify, accounts), issued at POST /admin/api-keys',
      },
    },
  };
  return document;
}
