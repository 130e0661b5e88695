/**
 * How an error is logged (pino's `err` key): its type, code, a message whose quoted parts are removed, and
 * the stack frames. Never the fields where a database or parser repeats what it was given (PostgreSQL's
 * `detail`, `where`, `internalQuery`, a parser's `body`), and never quoted input inside the message
 * (`invalid input syntax for type uuid: "<input>"`): request content must not reach the logs.
 */
export interface LoggedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError;
}

const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;

export function redactMessage(message: string): string {
  return message.replace(QUOTED, '"…"').slice(0, 300);
}

export function serializeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: '(not an Error)' };
  const { code } = error as { code?: unknown };
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n');
  const logged: LoggedError = {
    type: error.name,
    message: redactMessage(error.message),
    ...(typeof code === 'string' && { code }),
    ...(frames !== '' && { stack: frames }),
  };
  if (error.cause !== undefined && depth < 3) logged.cause = serializeError(error.cause, depth + 1);
  return logged;
}
