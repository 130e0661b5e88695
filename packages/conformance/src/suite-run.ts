import { complianceReport, type ComplianceReport } from './compliance-report.js';
import type { SchemeFixture } from './reference-data.js';
import { runConformance, type ClientCredential, type ConformanceRunOptions } from './runner.js';
import { SCHEME_SUITE_CASES } from './scheme-suite/index.js';
import type { CaseResult, ConformanceCase } from './types.js';

/** A responder to run the scheme suite against: its base URL and the TLS to reach it. */
export interface SchemeSuiteTarget {
  baseUrl: string;
  /** The CA bundle the responder's server certificate chains to. */
  caPem: string;
  participant: ClientCredential;
  /** A certificate the responder trusts whose holder adheres to no scheme; without it those cases are skipped. */
  nonParticipant?: ClientCredential;
}

export interface SchemeSuiteRunOptions {
  target: SchemeSuiteTarget;
  fixture: SchemeFixture;
  cases?: readonly ConformanceCase[];
  /** Told of each case as it ends (the gateway records it as an event). */
  onCase?: (result: CaseResult) => Promise<void> | void;
  timeoutMs?: number;
  /** A caller-named target: see ConformanceRunOptions. */
  guard?: ConformanceRunOptions['guard'];
  onUnreachable?: ConformanceRunOptions['onUnreachable'];
}

export type SchemeSuiteReport = ComplianceReport & { cases: CaseResult[] };

/** Runs the suite case by case over mutual TLS; the report counts every case of the suite. */
export async function runSchemeSuite(options: SchemeSuiteRunOptions): Promise<SchemeSuiteReport> {
  const cases = options.cases ?? SCHEME_SUITE_CASES;
  const { target } = options;
  const results = await runConformance({
    baseUrl: target.baseUrl,
    caPem: target.caPem,
    credentials: {
      participant: target.participant,
      ...(target.nonParticipant && { 'non-participant': target.nonParticipant }),
    },
    fixture: options.fixture,
    cases,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.onCase && { onResult: options.onCase }),
    ...(options.guard && { guard: options.guard }),
    ...(options.onUnreachable && { onUnreachable: options.onUnreachable }),
  });
  return { ...complianceReport(results, cases.length), cases: results };
}
