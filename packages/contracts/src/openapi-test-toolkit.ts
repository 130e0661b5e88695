import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { NestedError } from './http/errors.js';
import {
  CertificateChain,
  CertificateValidation,
  DataLoaded,
  DataLoadRequest,
  EnvironmentReset,
  EnvironmentResetRequest,
  GenerateDataRequest,
  GeneratedData,
  LoadRunAccepted,
  LoadRunRequest,
  PerformanceMetrics,
  SchemeRunAccepted,
  SchemeRunRequest,
  TestReport,
  ValidateCertificatesRequest,
} from './http/test-toolkit.js';
import { json } from './openapi-content.js';
import { z } from './zod.js';

const failed = json(NestedError, 'TEST_EXECUTION_FAILED with details.suggestion');

/** Family I, the test toolkit (test deployments only; 404 in live ones), in the OpenAPI document. */
export function registerTestToolkitPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/test/scheme/run',
    summary: 'Run the scheme139-25 suite (131 cases) against this service or another responder',
    request: { body: json(SchemeRunRequest, 'Suite, report, optional target') },
    responses: {
      202: json(SchemeRunAccepted, 'Started; poll the report'),
      400: json(NestedError, 'INVALID_REQUEST naming the field'),
      409: json(
        NestedError,
        'TEST_EXECUTION_FAILED: reference data not loaded, or a run already running',
      ),
      502: failed,
      503: failed,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/test/scheme/report/{testRunId}',
    summary: 'The report of a run, case by case (`?format=junit`: JUnit XML)',
    request: {
      params: z.object({ testRunId: z.uuid() }),
      query: z.object({ format: z.enum(['json', 'junit']).optional() }),
    },
    responses: {
      200: {
        description: 'The report',
        content: {
          'application/json': { schema: TestReport },
          'application/xml': { schema: z.string() },
        },
      },
      404: json(
        NestedError,
        'TEST_RUN_NOT_FOUND; TEST_EXECUTION_FAILED for JUnit XML of a run without a report',
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/test/data/generate',
    summary: 'Create sandbox accounts, each with a ready request and its expected outcome',
    request: { body: json(GenerateDataRequest, 'How many, which scenarios') },
    responses: { 201: json(GeneratedData, 'Created'), 400: json(NestedError, 'INVALID_REQUEST') },
  });
  registry.registerPath({
    method: 'post',
    path: '/test/data/load',
    summary: 'Load a versioned reference data set shipped with the service',
    request: { body: json(DataLoadRequest, 'Data set and version') },
    responses: {
      200: json(DataLoaded, 'Loaded'),
      400: json(
        NestedError,
        'INVALID_REQUEST: an unknown version names `version`; details.suggestion lists the known ones',
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/test/environment/reset',
    summary: 'Remove the sandbox accounts; optionally load the reference data again',
    request: { body: json(EnvironmentResetRequest, 'What to reset') },
    responses: { 200: json(EnvironmentReset, 'Reset'), 400: json(NestedError, 'INVALID_REQUEST') },
  });
  registry.registerPath({
    method: 'post',
    path: '/test/performance/load',
    summary: "A bounded load run against the service's own verification path (one at a time)",
    request: { body: json(LoadRunRequest, 'Users, duration, ramp-up') },
    responses: {
      202: json(LoadRunAccepted, 'Started'),
      400: json(NestedError, 'INVALID_REQUEST'),
      409: failed,
      503: failed,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/test/performance/metrics',
    summary: "The current or last load run's figures; before any, the service's own traffic",
    responses: { 200: json(PerformanceMetrics, 'Figures') },
  });
  registry.registerPath({
    method: 'get',
    path: '/test/certificates/chain',
    summary: 'The sandbox trust chain: PEM and parsed subject, issuer, validity',
    responses: { 200: json(CertificateChain, 'Chain'), 503: failed },
  });
  registry.registerPath({
    method: 'post',
    path: '/test/certificates/validate',
    summary: 'Certificates of each scenario, or your own, through the edge’s validator',
    request: { body: json(ValidateCertificatesRequest, 'Scenarios and/or a PEM') },
    responses: {
      200: json(CertificateValidation, 'Verdicts'),
      400: json(NestedError, 'INVALID_REQUEST'),
      503: failed,
    },
  });
}
