import { ApiError } from '@vop/http';

/** Family I's failure: TEST_EXECUTION_FAILED (nested) with advice in details.suggestion. */
export const testExecutionFailed = (status: number, message: string, suggestion: string) =>
  new ApiError(status, 'TEST_EXECUTION_FAILED', message, { suggestion });

export const noSandbox = () =>
  testExecutionFailed(
    503,
    'This deployment has no sandbox certificate authority for the toolkit',
    'Run the development profile (its CA is the sandbox CA), or pass a `target` with your own certificates',
  );

/**
 * A target that gave no answer: one text whether its port is closed, open without TLS, at an
 * address this deployment may not reach, or silent, so the toolkit is no port scanner. The cause
 * goes to the log.
 */
export const targetUnreachable = () =>
  testExecutionFailed(
    502,
    'The target could not be reached',
    "Check the URL (a loopback, private or link-local address is refused unless this deployment allows its network), that caPem signs the responder's server certificate, and that it accepts your client certificate",
  );
