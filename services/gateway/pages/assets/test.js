'use strict';
/*
 * The test page checks a payee as a bank's own customers do, through the simple family
 * (POST /api/v1/verify): a payee at this bank is decided here, one at another bank is asked of that bank.
 */
(function testPage() {
  const api = window.vopApi;
  const DO_NOT_READ_AS_MISMATCH = 'the name could not be checked. Do not read this as a mismatch.';
  const ADVICE = {
    MATCH: 'The name matches the account holder: proceed.',
    PARTIAL_MATCH: "Close match: ask the payer to confirm the name held by the payee's bank.",
    NO_MATCH: 'The name does not match the account holder.',
  };
  /** ERROR with the reason "no such account": who said so decides the sentence. */
  const NO_ACCOUNT_ADVICE = {
    here: 'No check possible: the account is unknown or closed.',
    'payee-bank':
      "No check possible: the payee's bank answered that it cannot check this account (unknown or closed, for example).",
    unknown: 'No check possible: the account is unknown or closed, or its bank cannot check it.',
  };
  /** The payee's bank could not answer (docs/api.md, "Payees at other banks"). */
  const RESPONDER_ADVICE = {
    RESPONDER_UNKNOWN:
      "The payee's bank could not be found (no bank for the IBAN's bank code, or no participant of the scheme holds the BIC): the name could not be checked. Check the IBAN and the BIC.",
    RESPONDER_NO_ENDPOINT: `The payee's bank lists no endpoint this bank can call in the scheme directory: ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_UNAVAILABLE: `The payee's bank could not be reached, or keeps failing and is left alone for a while: ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_TLS_FAILURE: `The secure connection to the payee's bank failed (its certificate is not trusted here): ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_ERROR: `The payee's bank answered with an error: ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_INVALID_ANSWER: `The payee's bank answered something the scheme's rules do not allow: ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_TIMEOUT: `The payee's bank did not answer in time: ${DO_NOT_READ_AS_MISMATCH}`,
    RESPONDER_BUSY:
      "This bank is already sending the payee's bank as many checks as agreed: the name could not be checked. Try again shortly; do not read this as a mismatch.",
  };
  const RESPONDER_FAILURE_ADVICE = `The payee's bank could not answer: ${DO_NOT_READ_AS_MISMATCH}`;
  /** A routed check's result names the payee's bank as the one that answered (its `reasons`). */

  const form = document.getElementById('verify-form');
  const value = (id) => document.getElementById(id).value.trim();
  const show = (id, shown) => {
    document.getElementById(id).hidden = !shown;
  };

  /**
   * Who gave the outcome: 'here' (our own accounts), 'payee-bank' (another bank answered), 'failed'
   * (another bank could not answer), or 'unknown' when the verification could not be read back; with
   * the BIC of the bank asked (`routed_to` of GET /verify/{id}).
   */
  async function originOf(answer, verificationId) {
    const failed = typeof answer.reason === 'string' && answer.reason.startsWith('RESPONDER_');
    try {
      const result = await api.getJson(`/verify/${encodeURIComponent(verificationId)}`);
      const asked = result.routed_to && result.routed_to.bic;
      if (failed) return { origin: 'failed', bic: asked };
      return asked ? { origin: 'payee-bank', bic: asked } : { origin: 'here' };
    } catch (error) {
      return failed ? { origin: 'failed' } : { origin: 'unknown', error: error.message };
    }
  }

  function adviceFor(answer, origin) {
    if (answer.result !== 'ERROR') return ADVICE[answer.result] || '';
    if (origin === 'failed') return RESPONDER_ADVICE[answer.reason] || RESPONDER_FAILURE_ADVICE;
    return NO_ACCOUNT_ADVICE[origin] || NO_ACCOUNT_ADVICE.unknown;
  }

  /** Which bank gave the outcome: the BIC the check was sent to, or the one the payer named. */
  function payeeBankLine(answer, found, typedBic) {
    const bic = found.bic || (typedBic && typedBic.toUpperCase());
    const named = bic ? ` (${bic})` : '';
    switch (found.origin) {
      case 'here':
        return 'Checked by this bank against its own accounts.';
      case 'payee-bank':
        return typedBic
          ? `Answered by the payee's bank${named}.`
          : `Answered by the payee's bank${named}, found from the IBAN's bank code.`;
      case 'failed':
        if (answer.reason === 'RESPONDER_UNKNOWN') return 'No bank was asked.';
        return `Asked the payee's bank${named}: it could not answer.`;
      default:
        return `Which bank answered could not be read: ${found.error}`;
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = document.getElementById('verify');
    button.disabled = true;
    api.setText('error', '');
    const started = performance.now();
    const bic = value('payee-bic');
    try {
      const { body: answer, headers } = await api.postJsonAnswer('/api/v1/verify', {
        iban: value('iban'),
        name: value('name'),
        ...(bic && { bic }),
      });
      const elapsed = Math.round(performance.now() - started);
      const verificationId = headers.get('X-Verification-ID') || '';
      const found = await originOf(answer, verificationId);
      const outcome = document.getElementById('outcome');
      outcome.textContent = answer.result;
      outcome.className = answer.result;
      api.setText('advice', adviceFor(answer, found.origin));
      api.setText('reason', answer.reason || '');
      show('reason-line', Boolean(answer.reason));
      api.setText('matched-name', answer.suggested_name || '');
      show('matched-name-line', Boolean(answer.suggested_name));
      api.setText('payee-bank', payeeBankLine(answer, found, bic));
      document.getElementById('result').dataset.origin = found.origin;
      api.setText('elapsed', elapsed);
      api.setText('verification-id', verificationId);
      show('result', true);
    } catch (error) {
      show('result', false);
      api.setText('error', error.message);
    } finally {
      button.disabled = false;
    }
  });
})();
