/** The body of a `POST /vop/verify` every benchmark sends: one payee, the same two agents. */
export function schemeRequestBody(name: string, iban: string): string {
  return JSON.stringify({
    party: { name },
    partyAccount: { iban },
    partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } },
    requestingAgent: { financialInstitutionId: { bicfi: 'DEUTDEFFXXX' } },
  });
}
