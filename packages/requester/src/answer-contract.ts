import { EpcVerifyResponse } from '@vop/contracts';
import type { PayeeCheck } from './types.js';

export type AnswerVerdict =
  { valid: true; answer: EpcVerifyResponse } | { valid: false; problem: string };

/**
 * A 200 body held to the contract and the v1.1.1 rules: partyNameMatch iff we sent a name,
 * partyIdMatch iff we sent an identification, matchedName on CMTC (and only there). A matchedName
 * beside MTCH is tolerated and dropped: the answer is still right, and the payer is shown no name the
 * scheme does not let a responder reveal. On NMTC or NOAP it is refused: that responder leaks names.
 */
export function checkAnswer(body: unknown, check: PayeeCheck): AnswerVerdict {
  const parsed = EpcVerifyResponse.safeParse(body);
  if (!parsed.success)
    return {
      valid: false,
      problem: parsed.error.issues.map((issue) => issue.path.join('.') || 'body').join(','),
    };
  const answer = parsed.data;
  const nameSent = check.name !== undefined;
  const idSent = check.identification !== undefined;
  if (nameSent !== (answer.partyNameMatch !== undefined))
    return {
      valid: false,
      problem: nameSent ? 'partyNameMatch missing' : 'partyNameMatch unasked',
    };
  if (idSent !== (answer.partyIdMatch !== undefined))
    return { valid: false, problem: idSent ? 'partyIdMatch missing' : 'partyIdMatch unasked' };
  if (answer.partyNameMatch === 'CMTC' && answer.matchedName === undefined)
    return { valid: false, problem: 'CMTC without matchedName' };
  if (answer.matchedName !== undefined && answer.partyNameMatch === 'MTCH') {
    const { matchedName: _dropped, ...withoutName } = answer;
    return { valid: true, answer: withoutName };
  }
  if (answer.matchedName !== undefined && answer.partyNameMatch !== 'CMTC')
    return { valid: false, problem: `matchedName on ${answer.partyNameMatch ?? 'no name match'}` };
  return {
    valid: true,
    answer: {
      ...(answer.partyNameMatch !== undefined && { partyNameMatch: answer.partyNameMatch }),
      ...(answer.matchedName !== undefined && { matchedName: answer.matchedName }),
      ...(answer.partyIdMatch !== undefined && { partyIdMatch: answer.partyIdMatch }),
    },
  };
}
