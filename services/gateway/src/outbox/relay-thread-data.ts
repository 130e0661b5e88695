import { z } from '@vop/contracts';

/** What the gateway hands its relay thread (relay-thread.ts); the connections come from the config. */
export const RelayThreadData = z.object({
  schema: z.string().min(1),
  namespace: z.string(),
  instanceId: z.string().min(1),
  lingerMs: z.number().int().nonnegative(),
});
export type RelayThreadData = z.infer<typeof RelayThreadData>;
