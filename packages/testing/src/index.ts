export { requireEnv } from './require-env.js';
export { createTestDatabase, type TestDatabase } from './create-test-database.js';
export { deciderSpec, type Decider } from './decider-spec.js';
export { projectionSpec, type Projection, type ProjectionSpec } from './projection-spec.js';
export {
  httpSpec,
  type Check,
  type ExpectedEvent,
  type GivenStream,
  type HttpExpectation,
  type HttpRequestInit,
  type HttpResponse,
  type HttpSpecEnvironment,
  type HttpSpecRequest,
} from './http-spec.js';
export { httpsClient, eventually, type HttpsClient, type JsonResponse } from './https-client.js';
export { britishIban, germanIban } from './ibans.js';
export { freePort, freePortRange } from './free-ports.js';
export { startServiceProcess, type ServiceProcess } from './processes.js';
export { eventLoopTurnsDuring } from './event-loop-turns.js';
export { createTestNamespace, type TestNamespace } from './kafka-namespace.js';
export { NAMES_IN_EVERY_SCRIPT, SPOOFING_CHARACTERS } from './hostile-strings.js';
export {
  startScriptedResponder,
  type RecordedRequest,
  type ResponderScript,
  type ScriptedResponder,
  type ScriptedResponderOptions,
} from './scripted-responder.js';
export { interceptTransactions } from './intercepted-transactions.js';
export { recordedAccountOpened } from './recorded-account-opened.js';
export { logLines } from './log-lines.js';
