const MILLISECONDS_PER_DAY = 24 * 60 * 60 * 1000;

/** Certificates start slightly in the past so a peer whose clock runs a little behind still accepts them. */
const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60 * 1000;

export const CERTIFICATE_AUTHORITY_VALID_DAYS = 3650;
export const LEAF_CERTIFICATE_VALID_DAYS = 365;

export interface ValidityWindow {
  notBefore: Date;
  notAfter: Date;
}

export function validityWindow(options: {
  notBefore?: Date;
  notAfter?: Date;
  defaultValidDays: number;
}): ValidityWindow {
  const notBefore = options.notBefore ?? new Date(Date.now() - CLOCK_SKEW_ALLOWANCE_MS);
  const notAfter =
    options.notAfter ??
    new Date(notBefore.getTime() + options.defaultValidDays * MILLISECONDS_PER_DAY);
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) {
    throw new RangeError('certificate validity dates must be valid dates');
  }
  if (notAfter.getTime() <= notBefore.getTime()) {
    throw new RangeError('certificate notAfter must be later than notBefore');
  }
  return { notBefore, notAfter };
}
