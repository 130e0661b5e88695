import type { z } from './zod.js';

/** A JSON request or response body of the OpenAPI document, described in one line. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
