'use strict';
(function testPage() {
  const api = window.vopApi;
  const ADVICE = {
    MTCH: 'The name matches the account holder: proceed.',
    CMTC: 'Close match: ask the payer to confirm the name held by the bank.',
    NMTC: 'The name does not match the account holder.',
    NOAP: 'No check possible: the account is unknown or closed.',
  };
  const form = document.getElementById('verify-form');
  const value = (id) => document.getElementById(id).value.trim();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = document.getElementById('verify');
    button.disabled = true;
    api.setText('error', '');
    const started = performance.now();
    try {
      const answer = await api.postJson('/vop/verify', {
        party: { name: value('name') },
        partyAccount: { iban: value('iban') },
        partyAgent: { financialInstitutionId: { bicfi: value('party-agent') } },
        requestingAgent: { financialInstitutionId: { bicfi: value('requesting-agent') } },
      });
      const outcome = document.getElementById('outcome');
      outcome.textContent = answer.partyNameMatch;
      outcome.className = answer.partyNameMatch;
      api.setText('advice', ADVICE[answer.partyNameMatch] || '');
      api.setText('matched-name', answer.matchedName || '');
      document.getElementById('matched-name-line').hidden = !answer.matchedName;
      api.setText('elapsed', Math.round(performance.now() - started));
      document.getElementById('result').hidden = false;
    } catch (error) {
      document.getElementById('result').hidden = true;
      api.setText('error', error.message);
    } finally {
      button.disabled = false;
    }
  });
})();
