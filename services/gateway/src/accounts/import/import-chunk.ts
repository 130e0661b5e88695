import {
  type AccountEvent,
  type AccountImportRecord,
  type AccountImportRowError,
  accountStreamId,
  domesticAccountOf,
  parseAccountEvent,
} from '@vop/contracts';
import { type AccountCopyAtCommit, appendedAt } from '@vop/verifications';
import { countedWrite, type EventStore, pipelined, type SqlExecutor } from '@vop/event-store';
import { accountSubject, type FieldCipher } from '@vop/personal-data';
import {
  type AccountCommand,
  type AccountState,
  decideAccount,
  evolveAccount,
  initialAccountState,
} from '../decider.js';
import { canonicalRecord, importedFields } from './import-record.js';
import type { UnvalidatedLine } from './record-sources.js';
import type { TimeSlice } from './time-slice.js';

/** A row to apply: a validated record, or an NDJSON line validated only if it is not the one last imported. */
export type ImportRow = { row: number; iban: string } & (
  | { record: AccountImportRecord; line?: undefined }
  | { line: Pick<UnvalidatedLine, 'text' | 'validate'>; record?: undefined }
);

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
  /**
   * HMAC-SHA256 under the deployment's fingerprint key (`ACCOUNT_FINGERPRINT_SUBJECT`), the key read
   * once per import outside any transaction: read with each chunk's executor it was never cached, two
   * statements a chunk queued behind the chunk's look-up (bench/RESULTS.md §5, the key read once).
   */
  fingerprintDigest: (text: string) => string;
  metadata: Record<string, string>;
  now: string;
  newId: () => string;
  /** When set, the work of preparing a chunk gives the thread a turn whenever a slice has passed. */
  slice?: TimeSlice;
}

export type ChunkCounts = Record<ImportOutcome, number>;

interface Planned {
  outcome: Exclude<ImportOutcome, 'unchanged'>;
  accountId: string;
  fingerprint: string;
  version: number;
  events: AccountEvent[];
}

interface Statement {
  text: string;
  params: readonly unknown[];
}

/**
 * A chunk decided and encrypted, its statements built: what its transaction writes, nothing more
 * to compute there. Prepared from reads outside that transaction, so a writer in between is caught
 * there (an update's expected version, the live-IBAN and stream unique indexes) as a conflict.
 */
export interface PreparedChunk {
  counts: ChunkCounts;
  /** Lines that failed validation (validated here, not when read). */
  errors: AccountImportRowError[];
  newStreams?: Statement & { notify: string };
  updated: Planned[];
  readModel: Statement[];
  planned: Planned[];
}

/** An account the chunk's rows name, as found live, with its stored fingerprint taken apart. */
type LiveRow = { accountId: string } & Fingerprints;

/** A row whose record the deployment's fingerprint did not find unchanged: its holder's key is needed. */
interface Pending {
  row: ImportRow;
  record: AccountImportRecord;
  canonical: string;
  account: LiveRow | undefined;
  recordDigest: string;
  fingerprint: string;
}

/** The live accounts of a chunk's IBANs, by IBAN. */
export type LiveAccounts = Map<string, LiveRow>;

/**
 * What deciding a chunk starts from, made ahead of it: its lines' digests and its live accounts. On
 * PGlite a chunk is looked up once the chunk before has committed, while the next one is read (import-run.ts).
 */
export interface ChunkLookUp {
  lineDigests: readonly (string | undefined)[];
  live: Promise<LiveAccounts>;
}

/** Each row's line digest under the deployment's key (undefined for a row read as a record). */
export async function digestLines(
  writer: Pick<ChunkWriter, 'fingerprintDigest' | 'slice'>,
  rows: readonly ImportRow[],
): Promise<(string | undefined)[]> {
  const { slice, fingerprintDigest: digest } = writer;
  const lineDigests: (string | undefined)[] = [];
  for (const row of rows) {
    if (slice?.due()) await slice.pass();
    lineDigests.push(row.line && digest(`${LINE_DIGEST_PREFIX}${row.line.text}`));
  }
  return lineDigests;
}

/**
 * Decides rows with distinct IBANs: one query finds the live accounts (unless looked up `ahead`). The
 * deployment's fingerprint key recognises unchanged records with no holder's key read; for the rest one
 * query reads the keys (made for new holders: a key whose chunk then fails stays unused, it holds no
 * personal data), one the streams to update; the same decide/evolve as the API; names encrypted; the
 * statements built. `sql` is the caller's transaction or, for a pipelined chunk, the store's client
 * outside any.
 */
export async function prepareImportChunk(
  writer: ChunkWriter,
  rows: readonly ImportRow[],
  sql: SqlExecutor,
  ahead?: ChunkLookUp,
): Promise<PreparedChunk> {
  const { store, now } = writer;
  const schema = store.schema;
  const counts: ChunkCounts = { created: 0, updated: 0, unchanged: 0 };
  const prepared: PreparedChunk = { counts, errors: [], updated: [], readModel: [], planned: [] };
  if (rows.length === 0) return prepared;
  const { slice, fingerprintDigest: digest } = writer;
  // The lines' digests are made while the database looks the accounts up (on PGlite, another thread).
  const looked = ahead?.live ?? lookUpAccounts(sql, schema, rows);
  looked.catch(() => undefined);
  const lineDigests = ahead?.lineDigests ?? (await digestLines(writer, rows));
  const live = await looked;

  const pending: Pending[] = [];
  /** Unchanged records whose stored fingerprint is not this one: this one is kept for next time. */
  const refreshed: { accountId: string; fingerprint: string }[] = [];
  for (const [index, row] of rows.entries()) {
    if (slice?.due()) await slice.pass();
    const account = live.get(row.iban);
    const keyed = account?.keyedBy === 'deployment' ? account : undefined;
    const lineDigest = lineDigests[index];
    // The very line last imported for this account: the same record, known valid, nothing to do.
    if (lineDigest !== undefined && keyed?.line === lineDigest) {
      counts.unchanged += 1;
      continue;
    }
    let { record } = row;
    if (record === undefined) {
      const validated = (row.line as NonNullable<typeof row.line>).validate();
      if (!validated.ok) {
        prepared.errors.push({ row: row.row, ...validated.error });
        continue;
      }
      record = validated.record;
    }
    const canonical = canonicalRecord(record);
    const recordDigest = digest(canonical);
    const fingerprint = deploymentFingerprint(recordDigest, lineDigest);
    if (keyed !== undefined && keyed.record === recordDigest) {
      counts.unchanged += 1;
      if (fingerprint !== keyed.stored) refreshed.push({ accountId: keyed.accountId, fingerprint });
      continue;
    }
    pending.push({ row, record, canonical, account, recordDigest, fingerprint });
  }

  const made = new Set<string>();
  const accountIds = pending.map(({ account }) => {
    if (account !== undefined) return account.accountId;
    const accountId = writer.newId();
    made.add(accountSubject(accountId));
    return accountId;
  });
  // Not kept in the key cache: an import's millions of holders would push out the single checks' keys.
  // A new account's holder has no key to look for yet. Its key seals its names at once; the chunk is
  // ready once those keys are stored (below).
  const { sealer, keysStored } = await writer.cipher.sealerAhead(
    accountIds.map(accountSubject),
    sql,
    {
      remember: false,
      made,
    },
  );

  const decisions: (ReturnType<typeof importCommandFor> & {
    accountId: string;
    fingerprint: string;
  })[] = [];
  for (const [
    index,
    { row, record, canonical, account, recordDigest, fingerprint },
  ] of pending.entries()) {
    if (slice?.due()) await slice.pass();
    const accountId = accountIds[index] as string;
    const subject = accountSubject(accountId);
    // A fingerprint under the holder's key (written before the deployment's key was): the same record
    // is recognised with that key once more, and its fingerprint is written under the deployment's.
    const heldUnchanged =
      account?.keyedBy === 'holder' &&
      ((row.line !== undefined &&
        account.line === sealer.digest(subject, `${LINE_DIGEST_PREFIX}${row.line.text}`)) ||
        account.record === sealer.digest(subject, canonical));
    const decision = importCommandFor(
      record,
      account && {
        accountId: account.accountId,
        fingerprint: heldUnchanged ? recordDigest : account.record,
      },
      recordDigest,
      { newAccountId: accountId, now },
    );
    if (decision.outcome === 'unchanged') {
      counts.unchanged += 1;
      refreshed.push({ accountId, fingerprint });
      continue;
    }
    decisions.push({ accountId, fingerprint, ...decision });
  }
  const updatedIds = decisions.filter((d) => d.outcome === 'updated').map((d) => d.accountId);
  const streams = await store.readStreams(updatedIds.map(accountStreamId), { tx: sql });

  for (const decision of decisions) {
    if (slice?.due()) await slice.pass();
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
    prepared.planned.push({
      ...decision,
      outcome: decision.outcome,
      version: stored.length,
      events,
    });
  }

  const created = prepared.planned.filter((plan) => plan.outcome === 'created');
  prepared.updated = prepared.planned.filter((plan) => plan.outcome === 'updated');
  if (created.length > 0)
    prepared.newStreams = store.startStreamsWrite(
      created.map((plan) => ({
        streamId: accountStreamId(plan.accountId),
        events: storedForm(writer, plan.events),
      })),
    ) as Statement & { notify: string };
  prepared.readModel = readModelStatements(schema, now, created, prepared.updated);
  if (refreshed.length > 0)
    prepared.readModel.push({
      text: `UPDATE ${schema}.accounts AS account SET import_fingerprint = kept.fp
               FROM unnest($1::uuid[], $2::text[]) AS kept(id, fp)
              WHERE account.id = kept.id AND account.holder_erased_at IS NULL`,
      params: [refreshed.map((row) => row.accountId), refreshed.map((row) => row.fingerprint)],
    });
  // A new holder that had a key after all (SubjectKeyRaceError) fails the chunk: it goes row by row.
  await keysStored;
  return prepared;
}

const storedForm = (writer: ChunkWriter, events: AccountEvent[]) =>
  events.map((event) => ({ type: event.type, data: event.data, metadata: writer.metadata }));

/**
 * Writes a prepared chunk in the caller's transaction: new streams in one statement, each updated
 * stream at its expected version, the inline read model in one statement per kind, then the copies,
 * all sent without waiting for each other (pipelined.ts).
 */
export async function writePreparedChunk(
  writer: ChunkWriter,
  prepared: PreparedChunk,
  tx: SqlExecutor,
): Promise<ChunkCounts> {
  const { store } = writer;
  const writes: Promise<unknown>[] = [];
  if (prepared.newStreams !== undefined) {
    const { text, params } = countedWrite(prepared.newStreams);
    writes.push(tx.query(text, params));
    writes.push(store.sql.notify(prepared.newStreams.notify, tx));
  }
  for (const plan of prepared.updated)
    writes.push(
      store.append(accountStreamId(plan.accountId), storedForm(writer, plan.events), {
        expectedVersion: plan.version,
        tx,
      }),
    );
  for (const statement of prepared.readModel)
    writes.push(tx.query(statement.text, statement.params));
  if (writer.copy !== undefined)
    writes.push(
      writer.copy.apply(
        tx,
        prepared.planned.flatMap((plan) => appendedAt(plan.version, plan.events)),
      ),
    );
  await pipelined(writes);
  return prepared.counts;
}

/** Prepares and writes rows with distinct IBANs in the caller's transaction. */
export async function applyImportChunk(
  writer: ChunkWriter,
  rows: readonly ImportRow[],
  tx: SqlExecutor,
): Promise<{ counts: ChunkCounts; errors: AccountImportRowError[] }> {
  const prepared = await prepareImportChunk(writer, rows, tx);
  return { counts: await writePreparedChunk(writer, prepared, tx), errors: prepared.errors };
}

/**
 * The live accounts of the chunk's IBANs with their fingerprints, read as one text value of a line per
 * account rather than a row per account: on PGlite the rows' handling (parsing each, crossing to this
 * thread) cost about three times the index look-ups (bench/RESULTS.md §5, the nightly file's look-up).
 * An id (uuid) is fixed-length and a fingerprint (base64url, `d1:`, `.`) holds no space; the IBAN comes last.
 */
export async function lookUpAccounts(
  sql: SqlExecutor,
  schema: string,
  rows: readonly ImportRow[],
): Promise<LiveAccounts> {
  const live: LiveAccounts = new Map();
  if (rows.length === 0) return live;
  const { rows: found } = await sql.query<{ accounts: string | null }>(
    `SELECT string_agg(id || ' ' || coalesce(import_fingerprint, '') || ' ' || iban, E'\\n') AS accounts
       FROM ${schema}.accounts WHERE iban = ANY($1::text[]) AND deleted_at IS NULL`,
    [rows.map(({ iban }) => iban)],
  );
  // string_agg of no rows is NULL.
  const accounts = found[0]?.accounts;
  if (!accounts) return live;
  for (const line of accounts.split('\n')) {
    const afterFingerprint = line.indexOf(' ', UUID_LENGTH + 1);
    const stored = line.slice(UUID_LENGTH + 1, afterFingerprint);
    live.set(line.slice(afterFingerprint + 1), {
      accountId: line.slice(0, UUID_LENGTH),
      ...fingerprints(stored === '' ? null : stored),
    });
  }
  return live;
}

const UUID_LENGTH = 36;

interface Fingerprints {
  stored: string | null;
  /** Whose key the digests are under: the deployment's, or (written before that) the holder's. */
  keyedBy?: 'deployment' | 'holder';
  record: string | null;
  line?: string;
}

/**
 * The stored import fingerprint: the record's digest, then (for an NDJSON line) the line's, after a
 * dot. A record's digest alone recognises the same record in any format or spelling; the line's lets
 * the nightly file's unchanged lines skip validation (the same text was valid when imported). Under
 * the deployment's key (DEPLOYMENT_KEYED), so an unchanged record needs no holder's key read; the
 * holder's erasure clears it (erasure.ts), as it does not die with the holder's key.
 */
function fingerprints(stored: string | null): Fingerprints {
  if (stored === null) return { stored, record: null };
  const keyedBy = stored.startsWith(DEPLOYMENT_KEYED) ? 'deployment' : 'holder';
  const digests = keyedBy === 'deployment' ? stored.slice(DEPLOYMENT_KEYED.length) : stored;
  const dot = digests.indexOf('.');
  return dot < 0
    ? { stored, keyedBy, record: digests }
    : { stored, keyedBy, record: digests.slice(0, dot), line: digests.slice(dot + 1) };
}

/** Marks a fingerprint under the deployment's key (a base64url digest never holds a colon). */
const DEPLOYMENT_KEYED = 'd1:';

const deploymentFingerprint = (record: string, line: string | undefined): string =>
  `${DEPLOYMENT_KEYED}${record}${line === undefined ? '' : `.${line}`}`;

/** Keeps a line's digest apart from any record's (a record's canonical text is a JSON array). */
const LINE_DIGEST_PREFIX = 'ndjson-line\n';

/** The inline accounts read model, with each record's fingerprint, in one statement per kind. */
function readModelStatements(
  schema: string,
  now: string,
  created: Planned[],
  updated: Planned[],
): Statement[] {
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
  const statements: Statement[] = [];
  if (created.length > 0)
    statements.push({
      text: `INSERT INTO ${schema}.accounts (id, iban, created_at, updated_at, import_fingerprint, sort_code, account_number, status, holder_type)
       SELECT id, iban, $3::timestamptz, $3::timestamptz, fp, sort_code, account_number, status, holder_type
         FROM ${imported}`,
      params: columns(created),
    });
  if (updated.length > 0)
    statements.push({
      text: `UPDATE ${schema}.accounts AS account
          SET iban = imported.iban, updated_at = $3::timestamptz,
              import_fingerprint = CASE WHEN account.holder_erased_at IS NULL THEN imported.fp END,
              sort_code = imported.sort_code, account_number = imported.account_number,
              status = imported.status, holder_type = imported.holder_type
         FROM ${imported}
        WHERE account.id = imported.id`,
      params: columns(updated),
    });
  return statements;
}
