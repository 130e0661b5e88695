/** The stream of one verification, in every store that records it (the requester's and matching's). */
export const verificationStreamId = (verificationId: string): string =>
  `verification-${verificationId}`;
