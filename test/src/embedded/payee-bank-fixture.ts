import type { ScriptedResponder } from '@vop/testing';
import { loadBankB, startBankB } from '../payee-bank-reference-data.js';
import { accountsKnownToDeciders, runEmbedded, type RunningEmbedded } from './fixtures.js';

export {
  BANK_B,
  OWN_CODE,
  OWN_HOLDER,
  UNLISTED_CODE,
  payeeAtB,
} from '../payee-bank-reference-data.js';

export interface BankAWithBankB {
  running: RunningEmbedded;
  bankB: ScriptedResponder;
}

/**
 * Bank A as an embedded deployment whose directory lists bank B at the scripted responder, whose
 * bank-code table routes OWN_CODE to us and BANK_B.code to bank B, and which holds `ownIban`.
 */
export async function bankAWithBankB(
  env: Record<string, string>,
  ownIban: string,
): Promise<BankAWithBankB> {
  const running = await runEmbedded({ env });
  const bankB = await startBankB(running.service.pki);
  await loadBankB(running.admin, bankB, ownIban);
  await accountsKnownToDeciders(running, [ownIban]);
  return { running, bankB };
}
