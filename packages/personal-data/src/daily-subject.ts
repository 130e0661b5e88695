import { assertValidSubjectId } from './subject-id.js';

/** `<prefix><yyyy-mm-dd>` for the UTC day of `date`: one key per day, so a day's data can be shredded at once. */
export function dailySubject(prefix: string, date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('dailySubject needs a valid date');
  const subjectId = `${prefix}${utcDay(date)}`;
  assertValidSubjectId(subjectId);
  return subjectId;
}

/** yyyy-mm-dd of the UTC day containing date. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
