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
