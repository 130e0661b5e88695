/** A load sent with If-Match on top of a version that is no longer the latest (the directory, the bank codes). */
export class LoadVersionMismatchError extends Error {
  constructor(
    what: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`The ${what} is at version ${actual}, not ${expected}`);
    this.name = 'LoadVersionMismatchError';
  }
}
