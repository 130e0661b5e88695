/** Subject ids appear inside the `pd1:` value format, whose parts are separated by ':'. */
export function assertValidSubjectId(subjectId: string): void {
  if (typeof subjectId !== 'string' || subjectId.length === 0) {
    throw new TypeError('A personal-data subject id must be a non-empty string');
  }
  if (subjectId.includes(':')) {
    throw new TypeError("A personal-data subject id must not contain ':'");
  }
}
