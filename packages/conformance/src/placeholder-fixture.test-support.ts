import type { ConformanceFixture } from './types.js';

/** A fixture whose values only name themselves, for the runner's specs (runner.test.ts, runner-guard.test.ts). */
export const PLACEHOLDER_FIXTURE: ConformanceFixture = {
  responderBic: 'COBADEFFXXX',
  responderBic8: 'COBADEFF',
  foreignBic: 'BNPAFRPPXXX',
  requesterBic: 'DEUTDEFFXXX',
  otherParticipantBic: 'BYLADEMMXXX',
  person: { iban: 'P', name: 'N', nameWithDiacritics: 'Ñ', otherName: 'O' },
  organisation: { iban: 'I', name: 'A', closeName: 'B', lei: 'L', otherLei: 'M', txid: 'T' },
  unknownIban: 'U',
};
