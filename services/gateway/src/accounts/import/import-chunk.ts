import {
  type AccountEvent,
  type AccountImportRecord,
  domesticAccountOf,
  parseAccountEvent,
} from '@vop/contracts';
import { type AccountCopyAtCommit, appendedAt } from '@vop/verifications';
import type { EventStore, SqlExecutor } from '@vop/event-store';
import { accountSubject, type FieldCipher } from '@vop/personal-data';
import { accountStreamId } from '../command-handler.js';
import {
  type AccountCommand,
  type AccountState,
  decideAccount,
  evolveAccount,
  initialAccountState,
} from '../decider.js';
import { canonicalRecord, importedFields } from './import-record.js';

export interface ImportRow {
  row: number;
  record: AccountImportRecord;
}

export type ImportOutcome = 'created' | 'updated' | 'unchanged';

export interface LiveAccount {
  accountId: string;
  fingerprint: string | null;
}

/**
 * What one import row asks of the account aggregate (pure): an unchanged record (same fingerprint)
 * nothing, a new IBAN an opening, a held IBAN an update to the whole record.
 */
export function importCommandFor(
  record: AccountImportRecord,
  live: LiveAccount | undefined,
  fingerprint: string,
  ids: { newAccountId: string; now: string },
): { outcome: ImportOutcome; command?: AccountCommand } {
  const fields = importedFields(record);
  if (live === undefined) {
    const command = { type: 'OpenAccount', accountId: ids.newAccountId, fields, now: ids.now };
    return { outcome: 'created', command: command as AccountCommand };
  }
  if (live.fingerprint === fingerprint) return { outcome: 'unchanged' };
  const { iban: _iban, ...changes } = fields;
  return {
    outcome: 'updated',
    command: { type: 'UpdateAccount', accountId: live.accountId, changes, now: ids.now },
  };
}

export interface ChunkWriter {
  store: EventStore;
  /** The copies of the accounts that decisions read, written in the chunk's transaction. */
  copy?: AccountCopyAtCommit;
  cipher: FieldCipher;
  metadata: Record<string, string>;
  now: string;
  newId: () => string;
}

export type ChunkCounts = Record<ImportOutcome, number>;

interface Planned {
  outcome: Exclude<ImportOutcome, 'unchanged'>;
  accountId: string;
  fingerprint: string;
  version: number;
  events: AccountEvent[];
}

/**
 * Applies rows with distinct IBANs in the caller's transaction: one query finds the live accounts,
 * one the keys, one the streams to update; the same decide/evolve as the API; new streams in one
 * statement; the inline read model in two. Names are encrypted before anything is stored.
 */
export async function applyImportChunk(
  writer: ChunkWriter,
  rows: readonly ImportRow[],
  tx: SqlExecutor,
): Promise<ChunkCounts> {
  const { store, now } = writer;
  const schema = store.schema;
  const counts: ChunkCounts = { created: 0, updated: 0, unchanged: 0 };
  if (rows.length === 0) return counts;
  const { rows: found } = await tx.query<{ id: string; iban: string; fp: string | null }>(
    `SELECT id, iban, import_fingerprint AS fp FROM ${schema}.accounts
      WHERE iban = ANY($1::text[]) AND deleted_at IS NULL`,
    [rows.map(({ record }) => record.iban)],
  );
  const live = new Map(found.map((row) => [row.iban, { accountId: row.id, fingerprint: row.fp }]));
  const accountIds = rows.map(({ record }) => live.get(record.iban)?.accountId ?? writer.newId());
  const sealer = await writer.cipher.sealerFor(accountIds.map(accountSubject), tx);

  const decisions = rows.map(({ record }, index) => {
    const accountId = accountIds[index] as string;
    const fingerprint = sealer.digest(accountSubject(accountId), canonicalRecord(record));
    const ids = { newAccountId: accountId, now };
    return {
      accountId,
      fingerprint,
      ...importCommandFor(record, live.get(record.iban), fingerprint, ids),
    };
  });
  const updatedIds = decisions.filter((d) => d.outcome === 'updated').map((d) => d.accountId);
  const streams = await store.readStreams(updatedIds.map(accountStreamId), { tx });

  const planned: Planned[] = [];
  for (const decision of decisions) {
    counts[decision.outcome] += 1;
    if (decision.command === undefined || decision.outcome === 'unchanged') continue;
    const stored = streams.get(accountStreamId(decision.accountId)) ?? [];
    const state: AccountState = stored
      .map((event) => parseAccountEvent(event.type, event.data))
      .reduce(evolveAccount, initialAccountState);
    const subject = accountSubject(decision.accountId);
    const events = decideAccount(decision.command, state).map((event) =>
      event.type === 'AccountDeleted'
        ? event
        : ({
            ...event,
            data: sealer.encryptFields(event.data, ['name', 'alternateNames'], subject),
          } as AccountEvent),
    );
    planned.push({ ...decision, outcome: decision.outcome, version: stored.length, events });
  }

  const toStored = (events: AccountEvent[]) =>
    events.map((event) => ({ type: event.type, data: event.data, metadata: writer.metadata }));
  const created = planned.filter((plan) => plan.outcome === 'created');
  const updated = planned.filter((plan) => plan.outcome === 'updated');
  await store.startStreams(
    created.map((plan) => ({
      streamId: accountStreamId(plan.accountId),
      events: toStored(plan.events),
    })),
    { tx },
  );
  for (const plan of updated)
    await store.append(accountStreamId(plan.accountId), toStored(plan.events), {
      expectedVersion: plan.version,
      tx,
    });
  await projectImported(tx, schema, now, created, updated);
  await writer.copy?.apply(
    tx,
    planned.flatMap((plan) => appendedAt(plan.version, plan.events)),
  );
  return counts;
}

/** The inline accounts read model, with each record's fingerprint, in one statement per kind. */
async function projectImported(
  tx: SqlExecutor,
  schema: string,
  now: string,
  created: Planned[],
  updated: Planned[],
): Promise<void> {
  const recordOf = (plan: Planned) => {
    const event = plan.events.at(-1);
    if (event === undefined || event.type === 'AccountDeleted')
      throw new Error('no record to project');
    return event.data;
  };
  // Family D finds an account here by sort code and account number (a GB IBAN's own), with its status
  // and holder type, as for an account written through the API.
  const columns = (plans: Planned[]) => {
    const records = plans.map(recordOf);
    return [
      plans.map((plan) => plan.accountId),
      records.map((record) => record.iban),
      now,
      plans.map((plan) => plan.fingerprint),
      records.map((record) => domesticAccountOf(record)?.sortCode ?? null),
      records.map((record) => domesticAccountOf(record)?.accountNumber ?? null),
      records.map((record) => record.status),
      records.map((record) => record.holderType ?? null),
    ];
  };
  const imported = `unnest($1::uuid[], $2::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
       AS imported(id, iban, fp, sort_code, account_number, status, holder_type)`;
  if (created.length > 0)
    await tx.query(
      `INSERT INTO ${schema}.accounts (id, iban, created_at, updated_at, import_fingerprint, sort_code, account_number, status, holder_type)
       SELECT id, iban, $3::timestamptz, $3::timestamptz, fp, sort_code, account_number, status, holder_type
         FROM ${imported}`,
      columns(created),
    );
  if (updated.length > 0)
    await tx.query(
      `UPDATE ${schema}.accounts AS account
          SET iban = imported.iban, updated_at = $3::timestamptz, import_fingerprint = imported.fp,
              sort_code = imported.sort_code, account_number = imported.account_number,
              status = imported.status, holder_type = imported.holder_type
         FROM ${imported}
        WHERE account.id = imported.id`,
      columns(updated),
    );
}
