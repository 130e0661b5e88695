import type { z } from '@vop/contracts';
import { ApiError } from '@vop/http';

/** Parses a query string with its contract; the first bad parameter is a 400 naming it. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field =
    issue?.code === 'unrecognized_keys'
      ? (issue.keys[0] ?? 'query')
      : String(issue?.path[0] ?? 'query');
  throw invalidParameter(
    field,
    issue?.code === 'unrecognized_keys' ? 'UNKNOWN_PARAMETER' : 'INVALID_VALUE',
  );
}

export function invalidParameter(field: string, reason: string, message?: string): ApiError {
  return new ApiError(400, 'INVALID_REQUEST', message ?? `Invalid query parameter: ${field}`, {
    field,
    reason,
  });
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Most buckets one answer holds: a month of hours, a year of days. */
const LONGEST_WINDOW_MS = { hour: 31 * DAY_MS, day: 366 * DAY_MS } as const;
const DEFAULT_WINDOW_MS = { hour: DAY_MS, day: 7 * DAY_MS } as const;

export interface TimeWindow {
  from: Date;
  to: Date;
}

/** [from, to): `to` defaults to now, `from` to a day (hours) or a week (days) before `to`. */
export function timeWindow(
  query: { from?: string | undefined; to?: string | undefined; granularity: 'hour' | 'day' },
  now: Date,
): TimeWindow {
  const to = query.to === undefined ? now : new Date(query.to);
  const from =
    query.from === undefined
      ? new Date(to.getTime() - DEFAULT_WINDOW_MS[query.granularity])
      : new Date(query.from);
  if (from.getTime() >= to.getTime())
    throw invalidParameter('from', 'AFTER_TO', 'from must be before to');
  if (to.getTime() - from.getTime() > LONGEST_WINDOW_MS[query.granularity])
    throw invalidParameter(
      'from',
      'WINDOW_TOO_LONG',
      `The window may span at most ${query.granularity === 'hour' ? '31 days of hours' : '366 days'}`,
    );
  return { from, to };
}
