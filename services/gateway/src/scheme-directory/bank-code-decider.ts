import type { BankCodes } from './bank-code-csv.js';
import { LoadVersionMismatchError } from './load-version-mismatch.js';

/** The stream holding every load of the bank-code table, one event per file. */
export const BANK_CODES_STREAM = 'bank-codes';

export interface BankCodeTableLoaded {
  type: 'BankCodeTableLoaded';
  data: {
    version: number;
    /** The national directory extract loaded, as the admin named it. */
    tableId?: string;
    loadedAt: string;
    /** The admin certificate's participant id; never a person. */
    loadedBy: string;
    entries: number;
    codes: BankCodes;
  };
}
export type BankCodeTableEvent = BankCodeTableLoaded;

export interface LoadBankCodeTable {
  type: 'LoadBankCodeTable';
  codes: BankCodes;
  entries: number;
  tableId?: string;
  now: string;
  loadedBy: string;
  /** When given, the load applies only on top of this version (If-Match); 0: only as the first. */
  expectedVersion?: number;
}
export type BankCodeTableCommand = LoadBankCodeTable;

export interface BankCodeTableState {
  version: number;
}
export const initialBankCodeTableState: BankCodeTableState = { version: 0 };

/** A table replaces the previous one whole; each load is the next version. */
export function decideBankCodeTable(
  command: BankCodeTableCommand,
  state: BankCodeTableState,
): BankCodeTableEvent[] {
  if (command.expectedVersion !== undefined && command.expectedVersion !== state.version)
    throw new LoadVersionMismatchError('bank-code table', command.expectedVersion, state.version);
  return [
    {
      type: 'BankCodeTableLoaded',
      data: {
        version: state.version + 1,
        ...(command.tableId !== undefined && { tableId: command.tableId }),
        loadedAt: command.now,
        loadedBy: command.loadedBy,
        entries: command.entries,
        codes: command.codes,
      },
    },
  ];
}

export function evolveBankCodeTable(
  state: BankCodeTableState,
  event: BankCodeTableEvent,
): BankCodeTableState {
  return { ...state, version: event.data.version };
}

export const bankCodeTableDecider = {
  decide: decideBankCodeTable,
  evolve: evolveBankCodeTable,
  initialState: initialBankCodeTableState,
};
