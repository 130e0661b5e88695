import { v7 as timeOrderedUuid } from 'uuid';
import { ConcurrencyError } from './concurrency-error.js';
import { isUniqueViolation } from './database-errors.js';
import { MESSAGE_COLUMNS, toRecordedEvent, type MessageRow } from './message-row.js';
import { withMigrationLock } from './migration-lock.js';
import { assertValidSchemaName, migrationStatements, quoteIdentifier } from './schema-sql.js';
import type { WriteStatement } from './write-together.js';
import {
  START,
  type AppendResult,
  type Checkpoint,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type SqlClient,
  type SqlExecutor,
} from './types.js';

export interface EventStoreOptions {
  /** Postgres schema holding this store's tables; each service has its own (e.g. "gateway"). */
  schema: string;
}

export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  /** Append inside the caller's transaction (the caller commits); otherwise the store runs its own. */
  tx?: SqlExecutor;
}

export interface ReadAllOptions {
  after: Checkpoint;
  limit: number;
  /**
   * The events of streams named with `streamPrefix`, at positions after `after`, are passed over: left
   * out of `events`, their data not read, counted in `passedOver`, and the checkpoint moves past them (a
   * relay whose every reader of those streams is written with them at commit, packages/outbox/src/relay.ts).
   */
  passOver?: { streamPrefix: string; after: bigint };
}

/**
 * The oldest transaction still running in this database as the statement's snapshot sees it (the
 * snapshot's xmax when none): the Emmett read's `pg_snapshot_xmin(pg_current_snapshot())`, less the
 * transactions of other databases. Transaction ids are the whole cluster's, so the plain xmin made every
 * relay wait for the longest transaction of every service sharing the server (a batch's held the
 * gateway's single checks back for seconds: bench/RESULTS.md §4). A transaction of another database
 * cannot write this database's tables; an id whose backend is no longer listed (it ended after the
 * snapshot), or whose database is not shown, still counts, so nothing later than an unseen commit is read.
 */
const SERVER_VISIBILITY_HORIZON = `
  SELECT coalesce(min(running.xid), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS running(xid)
   WHERE NOT EXISTS (
     SELECT 1 FROM pg_stat_activity AS backend
      WHERE backend.backend_xid = running.xid::xid
        AND backend.datname <> current_database())`;

/**
 * PGlite is one database with one backend, so its snapshot's xmin is that horizon already: no scan of
 * `pg_stat_activity` on the thread that answers single checks, once per relay round.
 */
const visibilityHorizon = (kind: SqlClient['kind']): string =>
  kind === 'postgres' ? SERVER_VISIBILITY_HORIZON : 'pg_snapshot_xmin(pg_current_snapshot())';

type AppendRow = { current_version: number } & { [K in keyof MessageRow]: MessageRow[K] | null };

const STREAM_POSITION_CONSTRAINT = 'messages_stream_position_key';

/**
 * An append-only event store in one Postgres schema: optimistic concurrency per stream, a global read that
 * never skips late-committing transactions, and subscriber checkpoints.
 */
export class EventStore {
  readonly sql: SqlClient;
  readonly schema: string;
  private readonly messagesTable: string;
  private readonly checkpointsTable: string;
  /** NOTIFY channel names are identifiers of at most 63 bytes; the schema name is limited accordingly. */
  private readonly appendedChannel: string;

  constructor(sql: SqlClient, options: EventStoreOptions) {
    assertValidSchemaName(options.schema);
    this.sql = sql;
    this.schema = options.schema;
    this.messagesTable = `${quoteIdentifier(options.schema)}.messages`;
    this.checkpointsTable = `${quoteIdentifier(options.schema)}.subscription_checkpoints`;
    this.appendedChannel = `${options.schema}_events_appended`;
  }

  /** Creates the schema and tables when missing. Safe to run concurrently from several processes. */
  async migrate(): Promise<void> {
    await withMigrationLock(this.sql, this.schema, async (tx) => {
      for (const statement of migrationStatements(this.schema)) await tx.query(statement);
    });
  }

  /**
   * Appends events at the end of a stream, with dense positions, if the stream is at the expected version.
   * @throws ConcurrencyError when it is not (or another appender won the race).
   */
  async append(
    streamId: string,
    events: NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    const expected = expectedStreamVersion(options.expectedVersion);
    const appendIn = async (tx: SqlExecutor): Promise<AppendResult> => {
      // Appenders to one stream take turns, so `any` never collides and a loser sees the winner's version.
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `${this.messagesTable}:${streamId}`,
      ]);
      const { rows } = await tx.query<AppendRow>(this.appendSql(), [
        streamId,
        serialiseEvents(events),
        expected,
      ]);
      const currentVersion = Number(rows[0]?.current_version ?? 0);
      if (expected !== null && currentVersion !== expected) {
        throw new ConcurrencyError(streamId, options.expectedVersion, currentVersion);
      }
      const recorded = rows.filter(isInsertedRow).map(toRecordedEvent);
      if (recorded.length > 0) await this.sql.notify(this.appendedChannel, tx);
      return { nextExpectedVersion: currentVersion + recorded.length, events: recorded };
    };
    try {
      return options.tx === undefined
        ? await this.sql.transaction(appendIn)
        : await appendIn(options.tx);
    } catch (error) {
      // Backstop for transactions whose snapshot predates the winner's commit (REPEATABLE READ callers).
      if (isUniqueViolation(error, STREAM_POSITION_CONSTRAINT)) {
        const actual =
          options.tx === undefined ? await this.streamVersion(streamId) : (expected ?? 0) + 1;
        throw new ConcurrencyError(streamId, options.expectedVersion, actual);
      }
      throw error;
    }
  }

  /**
   * Starts many new streams in one statement (group commit for the hot path): each stream's events get
   * positions 1..n. `ifExists: 'fail'` (default) throws ConcurrencyError when any stream already exists;
   * `'skip'` leaves existing streams alone and returns only what it inserted (idempotent re-runs).
   */
  async startStreams(
    streams: { streamId: string; events: NewEvent[] }[],
    options: { tx?: SqlExecutor; ifExists?: 'fail' | 'skip' } = {},
  ): Promise<RecordedEvent[]> {
    const rows = await this.insertNewStreams<MessageRow>(streams, options, MESSAGE_COLUMNS);
    return rows.map(toRecordedEvent).sort((a, b) => (a.globalPosition < b.globalPosition ? -1 : 1));
  }

  /**
   * startStreams for writers that do not read back what they wrote (the hot path): the events do not
   * travel back from the database, only how many were inserted.
   */
  async startStreamsCounted(
    streams: { streamId: string; events: NewEvent[] }[],
    options: { tx?: SqlExecutor; ifExists?: 'fail' | 'skip' } = {},
  ): Promise<number> {
    return (await this.insertNewStreams(streams, options, 'global_position')).length;
  }

  /**
   * startStreamsCounted as a write of a combined statement (write-together.ts): the recorder's round
   * writes its requests, their ends and the read model's rows in one statement. A stream that exists
   * fails the whole statement with a unique violation (`ifExists: 'fail'`, default) or is left alone
   * (`'skip'`: a consumer whose streams are its record of what it processed).
   */
  startStreamsWrite(
    streams: { streamId: string; events: NewEvent[] }[],
    options: { ifExists?: 'fail' | 'skip' } = {},
  ): WriteStatement {
    return {
      ...this.newStreamsStatement(streams, options.ifExists === 'skip', 'global_position'),
      notify: this.appendedChannel,
    };
  }

  private newStreamsStatement(
    streams: { streamId: string; events: NewEvent[] }[],
    skip: boolean,
    returning: string,
  ): { text: string; params: [string] } {
    const payload = JSON.stringify(
      streams.map(({ streamId, events }) => ({ streamId, events: storedForm(events) })),
    );
    const text = `
      INSERT INTO ${this.messagesTable} (stream_id, stream_position, event_id, type, data, metadata)
      SELECT stream.body->>'streamId', event.ordinality::integer, (event.body->>'eventId')::uuid, event.body->>'type',
             event.body->'data', event.body->'metadata'
        FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS stream(body, ordinality),
             jsonb_array_elements(stream.body->'events') WITH ORDINALITY AS event(body, ordinality)
       ${skip ? `WHERE NOT EXISTS (SELECT 1 FROM ${this.messagesTable} existing WHERE existing.stream_id = stream.body->>'streamId')` : ''}
       ORDER BY stream.ordinality, event.ordinality
      ${skip ? 'ON CONFLICT (stream_id, stream_position) DO NOTHING' : ''}
      RETURNING ${returning}`;
    return { text, params: [payload] };
  }

  private async insertNewStreams<R>(
    streams: { streamId: string; events: NewEvent[] }[],
    options: { tx?: SqlExecutor; ifExists?: 'fail' | 'skip' },
    returning: string,
  ): Promise<R[]> {
    if (streams.length === 0) return [];
    const statement = this.newStreamsStatement(streams, options.ifExists === 'skip', returning);
    const insert = async (tx: SqlExecutor): Promise<R[]> => {
      const { rows } = await tx.query<R>(statement.text, statement.params);
      if (rows.length > 0) await this.sql.notify(this.appendedChannel, tx);
      return rows;
    };
    try {
      return options.tx === undefined
        ? await this.sql.transaction(insert)
        : await insert(options.tx);
    } catch (error) {
      if (isUniqueViolation(error, STREAM_POSITION_CONSTRAINT)) {
        const first = streams[0] as { streamId: string };
        throw new ConcurrencyError(first.streamId, 'no_stream', 1);
      }
      throw error;
    }
  }

  async readStream(streamId: string, options: { tx?: SqlExecutor } = {}): Promise<RecordedEvent[]> {
    const { rows } = await (options.tx ?? this.sql).query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM ${this.messagesTable} WHERE stream_id = $1 ORDER BY stream_position`,
      [streamId],
    );
    return rows.map(toRecordedEvent);
  }

  /** The stream's last event, or undefined when it has none (streams whose events each replace the last). */
  async readLastEvent(
    streamId: string,
    options: { tx?: SqlExecutor } = {},
  ): Promise<RecordedEvent | undefined> {
    const { rows } = await (options.tx ?? this.sql).query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM ${this.messagesTable} WHERE stream_id = $1
       ORDER BY stream_position DESC LIMIT 1`,
      [streamId],
    );
    const [row] = rows;
    return row === undefined ? undefined : toRecordedEvent(row);
  }

  /** Many streams in one query (bulk writers): each stream's events in order; absent streams are absent. */
  async readStreams(
    streamIds: readonly string[],
    options: { tx?: SqlExecutor } = {},
  ): Promise<Map<string, RecordedEvent[]>> {
    const streams = new Map<string, RecordedEvent[]>();
    if (streamIds.length === 0) return streams;
    const { rows } = await (options.tx ?? this.sql).query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM ${this.messagesTable}
        WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_position`,
      [streamIds],
    );
    for (const event of rows.map(toRecordedEvent)) {
      const stream = streams.get(event.streamId);
      if (stream === undefined) streams.set(event.streamId, [event]);
      else stream.push(event);
    }
    return streams;
  }

  /** The stream's version: the position of its last event, 0 when it has none. */
  async streamVersion(streamId: string, options: { tx?: SqlExecutor } = {}): Promise<number> {
    const { rows } = await (options.tx ?? this.sql).query<{ version: number }>(
      `SELECT coalesce(max(stream_position), 0) AS version FROM ${this.messagesTable} WHERE stream_id = $1`,
      [streamId],
    );
    return Number(rows[0]?.version ?? 0);
  }

  /**
   * Reads every stream in commit-safe order. Only transactions older than every transaction still running
   * in this database are visible (`visibilityHorizon`), so an event committed late is read after, never
   * skipped.
   */
  async readAll(
    options: ReadAllOptions,
  ): Promise<{ events: RecordedEvent[]; checkpoint: Checkpoint; passedOver: number }> {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new RangeError(`readAll limit must be a positive integer, got ${options.limit}`);
    }
    const { passOver } = options;
    const params = [
      options.after.transactionId,
      options.after.globalPosition.toString(),
      options.limit,
    ];
    const { rows } = await this.sql.query<
      MessageRow & { passed_over?: boolean; page_rows?: unknown }
    >(
      passOver === undefined ? this.pageSql(MESSAGE_COLUMNS) : this.passingOverSql(),
      passOver === undefined
        ? params
        : [...params, passOver.streamPrefix, passOver.after.toString()],
    );
    const last = rows.at(-1);
    const checkpoint =
      last === undefined
        ? { ...options.after }
        : { transactionId: last.transaction_id, globalPosition: BigInt(last.global_position) };
    if (passOver === undefined)
      return { events: rows.map(toRecordedEvent), checkpoint, passedOver: 0 };
    const read = rows.filter((row) => row.passed_over !== true);
    return {
      events: read.map(toRecordedEvent),
      checkpoint,
      passedOver: last === undefined ? 0 : Number(last.page_rows) - read.length,
    };
  }

  /**
   * readAll's page with the events passed over left out of the rows: one row for each event kept, and
   * the page's last event (passed over or not, its data not read), which carries the page's size
   * (`page_rows`). A row for each event passed over, even without its data, cost PGlite's thread four
   * times the page's read (bench/RESULTS.md §5, account events read at commit).
   */
  private passingOverSql(): string {
    const page = this.pageSql(
      `message.*, starts_with(message.stream_id, $4) AND message.global_position > $5::bigint
         AS passed_over`,
    );
    return `SELECT global_position::text AS global_position, transaction_id::text AS transaction_id,
             stream_id, stream_position, event_id::text AS event_id, type,
             CASE WHEN passed_over THEN NULL ELSE data END AS data,
             CASE WHEN passed_over THEN NULL ELSE metadata END AS metadata,
             occurred_at, passed_over, page_rows
        FROM (SELECT page.*, count(*) OVER () AS page_rows,
                     row_number() OVER (ORDER BY page.transaction_id, page.global_position) AS nth
                FROM (${page}) AS page) AS counted
       WHERE NOT passed_over OR nth = page_rows
       ORDER BY counted.transaction_id, counted.global_position`;
  }

  /**
   * readAll's page of `columns`: at most $3 events after the checkpoint ($1, $2) in commit order. ORDER BY
   * names the table's columns: bare names would sort by the text columns of the output.
   */
  private pageSql(columns: string): string {
    return `SELECT ${columns} FROM ${this.messagesTable} AS message
             WHERE transaction_id < (${visibilityHorizon(this.sql.kind)})
               AND (transaction_id, global_position) > ($1::xid8, $2::bigint)
             ORDER BY message.transaction_id, message.global_position
             LIMIT $3`;
  }

  /** The position of the last event this store holds (committed), 0n when it has none. */
  async lastPosition(): Promise<bigint> {
    const { rows } = await this.sql.query<{ position: string }>(
      `SELECT coalesce(max(global_position), 0)::text AS position FROM ${this.messagesTable}`,
    );
    return BigInt(rows[0]?.position ?? '0');
  }

  /** Where a subscriber stands; START when it has never saved a checkpoint. */
  async loadCheckpoint(subscriberName: string): Promise<Checkpoint> {
    const { rows } = await this.sql.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
         FROM ${this.checkpointsTable} WHERE name = $1`,
      [subscriberName],
    );
    const row = rows[0];
    if (row === undefined) return { ...START };
    return { transactionId: row.transaction_id, globalPosition: BigInt(row.global_position) };
  }

  /** Saves a subscriber's position; pass `tx` to save it atomically with the subscriber's own writes. */
  async saveCheckpoint(
    subscriberName: string,
    checkpoint: Checkpoint,
    tx?: SqlExecutor,
  ): Promise<void> {
    await (tx ?? this.sql).query(
      `INSERT INTO ${this.checkpointsTable} (name, transaction_id, global_position)
       VALUES ($1, $2::xid8, $3::bigint)
       ON CONFLICT (name) DO UPDATE
         SET transaction_id = EXCLUDED.transaction_id, global_position = EXCLUDED.global_position, updated_at = now()`,
      [subscriberName, checkpoint.transactionId, checkpoint.globalPosition.toString()],
    );
  }

  /** Calls onAppend (a wake-up hint) after any append to this store commits, in this or another process. */
  onAppend(onAppend: () => void): Promise<() => Promise<void>> {
    return this.sql.listen(this.appendedChannel, onAppend);
  }

  /**
   * One statement: reads the stream's version and, when it matches ($3; NULL = any), inserts the events after
   * it. The version always comes back, inserted rows only on a match.
   */
  private appendSql(): string {
    return `
      WITH current_version AS (
        SELECT coalesce(max(stream_position), 0) AS version FROM ${this.messagesTable} WHERE stream_id = $1
      ), inserted AS (
        INSERT INTO ${this.messagesTable} (stream_id, stream_position, event_id, type, data, metadata)
        SELECT $1, current_version.version + new_event.ordinality::integer,
               (new_event.body->>'eventId')::uuid, new_event.body->>'type',
               new_event.body->'data', new_event.body->'metadata'
          FROM current_version, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS new_event(body, ordinality)
         WHERE $3::integer IS NULL OR current_version.version = $3::integer
         ORDER BY new_event.ordinality
        RETURNING ${MESSAGE_COLUMNS}
      )
      SELECT current_version.version AS current_version, inserted.*
        FROM current_version LEFT JOIN inserted ON true
       ORDER BY inserted.stream_position`;
  }
}

/** The version the stream must be at, or null for `any`. */
function expectedStreamVersion(expectedVersion: ExpectedVersion): number | null {
  if (expectedVersion === 'any') return null;
  if (expectedVersion === 'no_stream') return 0;
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
    throw new RangeError(
      `expectedVersion must be a non-negative integer, 'no_stream' or 'any', got ${expectedVersion}`,
    );
  }
  return expectedVersion;
}

/** The events as the append statements read them (JSON), ids assigned. */
function storedForm(
  events: NewEvent[],
): { eventId: string; type: string; data: unknown; metadata: Record<string, string> }[] {
  return events.map((event) => ({
    // Time-ordered: the unique index on event ids grows at its end, not at random pages of a large store.
    eventId: event.eventId ?? timeOrderedUuid(),
    type: event.type,
    // JSON has no undefined; store it as null rather than dropping the key.
    data: event.data === undefined ? null : event.data,
    metadata: event.metadata ?? {},
  }));
}

function serialiseEvents(events: NewEvent[]): string {
  return JSON.stringify(storedForm(events));
}

function isInsertedRow(row: AppendRow): row is AppendRow & MessageRow {
  return row.global_position !== null;
}
