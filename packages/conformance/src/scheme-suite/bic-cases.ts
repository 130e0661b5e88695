import type { ConformanceCase } from '../types.js';
import {
  clientInconsistent,
  clientInvalid,
  formatError,
  numbered,
  post,
  reused,
  verification,
} from './case-builders.js';

const agent = (bicfi: unknown) => ({ financialInstitutionId: { bicfi } });
const withAgents = (
  partyAgent: unknown,
  requestingAgent: unknown = agent('{{requesterBic}}'),
  party: Record<string, unknown> = { name: '{{person.name}}' },
  iban = '{{person.iban}}',
) => post({ ...verification(party, iban), partyAgent, requestingAgent });
const byPartyAgent = (bicfi: unknown) => withAgents(agent(bicfi));
const byRequester = (bicfi: unknown) => withAgents(agent('{{responderBic}}'), agent(bicfi));
const match = { status: 200, partyNameMatch: 'MTCH' } as const;
const notApplicable = { status: 200, partyNameMatch: 'NOAP', matchedName: 'absent' } as const;
const byLei = { lei: '{{organisation.lei}}' };

/** The agents: who answers (partyAgent), who asks (requestingAgent and its certificate), BIC form. */
export const BIC_CASES: readonly ConformanceCase[] = numbered('B', 'bic', [
  {
    description: "The responder's 11-character BIC: answered",
    request: byPartyAgent('{{responderBic}}'),
    expect: match,
  },
  reused('EPC-O-06', "The responder's 8-character BIC: answered"),
  {
    description: "The responder's BIC in small letters is the same BIC: answered",
    request: byPartyAgent('{{responderBicLower}}'),
    expect: match,
  },
  reused('EPC-O-04', 'A partyAgent that is another bank: NOAP'),
  {
    description: 'Another bank by its 8-character BIC: NOAP',
    request: byPartyAgent('{{foreignBic8}}'),
    expect: notApplicable,
  },
  {
    description: 'Another bank, with a close name: NOAP and no matchedName',
    request: withAgents(agent('{{foreignBic}}'), undefined, { name: 'Erika Musterman' }),
    expect: notApplicable,
  },
  {
    description: 'Another bank, an IBAN nobody holds: NOAP',
    request: withAgents(agent('{{foreignBic}}'), undefined, undefined, '{{unknownIban}}'),
    expect: notApplicable,
  },
  reused('EPC-O-05', 'Another bank asked by identification: partyIdMatch NOAP'),
  {
    description: 'A partyAgent BIC of 9 characters: FORMAT_ERROR',
    request: byPartyAgent('COBADEFFX'),
    expect: formatError,
  },
  {
    description: 'A partyAgent BIC of 12 characters: FORMAT_ERROR',
    request: byPartyAgent('COBADEFFXXXX'),
    expect: formatError,
  },
  {
    description: 'A partyAgent BIC with digits in the bank code: FORMAT_ERROR',
    request: byPartyAgent('C0BADEFFXXX'),
    expect: formatError,
  },
  {
    description: 'A partyAgent BIC with digits for the country: FORMAT_ERROR',
    request: byPartyAgent('COBA12FFXXX'),
    expect: formatError,
  },
  {
    description: 'A partyAgent BIC with a space inside: FORMAT_ERROR',
    request: byPartyAgent('COBA DEFFXX'),
    expect: formatError,
  },
  reused('EPC-E-07', 'An empty partyAgent BIC: FORMAT_ERROR'),
  {
    description: 'A partyAgent BIC that is a number: FORMAT_ERROR',
    request: byPartyAgent(12345678),
    expect: formatError,
  },
  {
    description: 'Without partyAgent: FORMAT_ERROR',
    request: post({
      party: { name: '{{person.name}}' },
      partyAccount: { iban: '{{person.iban}}' },
      requestingAgent: agent('{{requesterBic}}'),
    }),
    expect: formatError,
  },
  {
    description: 'Without requestingAgent: FORMAT_ERROR',
    request: post({
      party: { name: '{{person.name}}' },
      partyAccount: { iban: '{{person.iban}}' },
      partyAgent: agent('{{responderBic}}'),
    }),
    expect: formatError,
  },
  {
    description: 'A financial institution with an unknown field: FORMAT_ERROR',
    request: withAgents({ financialInstitutionId: { bicfi: '{{responderBic}}', name: 'Bank' } }),
    expect: formatError,
  },
  {
    description: 'A partyAgent without financialInstitutionId: FORMAT_ERROR',
    request: withAgents({ bicfi: '{{responderBic}}' }),
    expect: formatError,
  },
  reused('EPC-F-04', 'A requestingAgent BIC that is no BIC: FORMAT_ERROR'),
  {
    description: "The requester's own BIC in small letters: answered",
    request: byRequester('{{requesterBicLower}}'),
    expect: match,
  },
  {
    description: "The requester's own BIC as 8 characters: answered",
    request: byRequester('{{requesterBic8}}'),
    expect: match,
  },
  reused('EPC-D-02', "Another participant's BIC as requestingAgent: 401 CLIENT_INCONSISTENT"),
  reused('EPC-D-04', 'A requestingAgent BIC in no directory: 401 CLIENT_INCONSISTENT'),
  {
    description: "Another participant's BIC, asked by identification: 401 CLIENT_INCONSISTENT",
    request: withAgents(agent('{{responderBic}}'), agent('{{otherParticipantBic}}'), {
      identification: byLei,
    }),
    expect: clientInconsistent,
  },
  reused('EPC-D-01', 'A trusted certificate of no participant: 401 CLIENT_INVALID'),
  {
    description: 'A trusted certificate of no participant, asked by identification: 401',
    credential: 'non-participant',
    request: withAgents(agent('{{responderBic}}'), undefined, { identification: byLei }),
    expect: clientInvalid,
  },
  reused('EPC-D-03', 'No client certificate: 401 CLIENT_INVALID'),
  {
    description: 'No client certificate, another bank as partyAgent: 401 before anything',
    credential: 'none',
    request: byPartyAgent('{{foreignBic}}'),
    expect: clientInvalid,
  },
  {
    description: 'No client certificate and a body that is not JSON: 401 before the body',
    credential: 'none',
    request: { ...post(undefined), raw: '{"party":' },
    expect: clientInvalid,
  },
  {
    description: "The responder's BIC, an IBAN it does not hold: NOAP",
    request: withAgents(agent('{{responderBic}}'), undefined, undefined, '{{unknownIban}}'),
    expect: notApplicable,
  },
  {
    description: 'An IBAN with a wrong check sum at the responder: FORMAT_ERROR',
    request: withAgents(agent('{{responderBic}}'), undefined, undefined, 'DE00500105170001392501'),
    expect: formatError,
  },
]);
