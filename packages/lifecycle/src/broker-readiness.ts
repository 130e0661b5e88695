import type { ReadinessCheck } from '@vop/http';
import type { Bus } from '@vop/messaging';

/**
 * Readiness while the broker answers a metadata request, within `timeoutMs`. One probe at a time: a
 * probe kafkajs keeps retrying against a stopped broker is awaited again, not started once per poll.
 */
export function brokerReadiness(bus: Bus, timeoutMs = 1500): ReadinessCheck {
  let inFlight: Promise<void> | undefined;
  return {
    name: 'kafka',
    async check() {
      inFlight ??= bus.ensureTopics([]).finally(() => (inFlight = undefined));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('the broker did not answer in time')), timeoutMs);
      });
      try {
        await Promise.race([inFlight, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
