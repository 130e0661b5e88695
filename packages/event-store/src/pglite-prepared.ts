import { parse, type PGlite, protocol, type Results } from '@electric-sql/pglite';
import { LRUCache } from 'lru-cache';
import { decodeParam, decodeParams, type EncodedParam } from './pglite-encoded-params.js';

/** Statements kept prepared at once; the one used longest ago is closed first. */
const MAX_PREPARED = 256;

/** How long a statement is kept before it is prepared, and so planned, again (see the class). */
const REPLAN_AFTER_MS = 10_000;

/** Only these are kept prepared; anything else (SET, LISTEN, a migration's DDL) runs as before. */
const REUSABLE = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * A statement that changes tables closes every kept statement first: a plan cached before a table
 * changed could otherwise fail with "cached plan must not change result type" inside a caller's
 * transaction.
 */
const SCHEMA_CHANGE = /^\s*(?:CREATE|ALTER|DROP|TRUNCATE|COMMENT|DO)\b/i;

interface PreparedStatement {
  name: string;
  /** The parameters' types as the server inferred them, for serializing values as PGlite's query does. */
  parameterTypes: number[];
}

const { serialize } = protocol;

/** boolean (`'yes'` → `'t'`) and bytea (a string is refused): pglite's types.ts. */
const STRING_CHANGED_BY_SERIALIZER = new Set([16, 17]);

const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

/**
 * The closes, then Bind, Describe, Execute and Sync, written once into one buffer. PGlite's serializer
 * measured and encoded each string in JavaScript and copied the message three times on the way; a long
 * value (an import chunk's JSON) made that a share of PGlite's thread (bench/RESULTS.md §5). Every value
 * is text (format 0), as PGlite's `query` sends it: the serializers made each a string, and an encoded
 * one is a string's UTF-8.
 */
function runMessages(
  closes: readonly Uint8Array[],
  statement: string,
  values: readonly (string | Uint8Array | null)[],
): Buffer {
  let valueBytes = 0;
  for (const value of values)
    valueBytes +=
      4 +
      (value === null ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length);
  const statementBytes = Buffer.byteLength(statement);
  // Code and length, the unnamed portal, the statement, no format codes (all text), the values, no
  // result format codes (all text).
  const bindLength = 4 + 1 + statementBytes + 1 + 2 + 2 + valueBytes + 2;
  let total = 1 + bindLength + DESCRIBE_PORTAL.length + EXECUTE.length + SYNC.length;
  for (const close of closes) total += close.length;
  const message = Buffer.allocUnsafe(total);
  let at = 0;
  for (const part of closes) {
    message.set(part, at);
    at += part.length;
  }
  at = message.writeUInt8(0x42, at); // 'B'
  at = message.writeInt32BE(bindLength, at);
  at = message.writeUInt8(0, at);
  at += message.write(statement, at, 'utf8');
  at = message.writeUInt8(0, at);
  at = message.writeInt16BE(0, at);
  at = message.writeUInt16BE(values.length, at);
  for (const value of values) {
    if (value === null) {
      at = message.writeInt32BE(-1, at);
    } else if (typeof value === 'string') {
      const length = message.write(value, at + 4, 'utf8');
      message.writeInt32BE(length, at);
      at += 4 + length;
    } else {
      at = message.writeInt32BE(value.length, at);
      message.set(value, at);
      at += value.length;
    }
  }
  at = message.writeInt16BE(0, at);
  for (const part of [DESCRIBE_PORTAL, EXECUTE, SYNC]) {
    message.set(part, at);
    at += part.length;
  }
  return message;
}
/** Names unique in the process: two instances over one PGlite (the specs) never collide. */
let statementsNamed = 0;

/**
 * PGlite's `query` with each statement text kept as a named prepared statement: parsed once, planned
 * again every REPLAN_AFTER_MS (below).
 *
 * Why: `query` parses, describes and plans the text on every call, in five calls into PGlite. Under the
 * embedded service most of the recorder's round (one statement for a whole round of checks) was that,
 * paid once per round whatever its size, so at a modest rate, with one or two checks a round, it kept
 * PGlite's thread busy (figures in bench/RESULTS.md §1).
 *
 * The values are serialized and the rows parsed exactly as `query` does (the types the server inferred
 * for the parameters, PGlite's serializers and parsers), so callers see the same results and errors.
 *
 * On PostgreSQL node-postgres keeps a named statement per connection and cannot close one, so
 * statement-names.ts caps how many texts get names. Here there is one backend and this class sends the
 * Parse and the Close itself, so it keeps the texts used last instead.
 *
 * A statement is prepared again once it has been kept for REPLAN_AFTER_MS. Why: after five runs PostgreSQL
 * keeps one generic plan for a statement until its tables' statistics change, and PGlite runs no
 * autovacuum: the embedded store's upkeep analyses a table only once it doubled
 * (services/embedded/src/store-upkeep.ts), and a store it never ran on has none. A plan made while a
 * table was small scans the whole table, and kept, it went on scanning it as the table grew: the
 * copies' read of 1,000 account ids by `= ANY` took 80 ms at 200,000 accounts, and an embedded import
 * slowed as its store grew (bench/RESULTS.md §5). Planning every run instead
 * (`plan_cache_mode = force_custom_plan`) cost a check ~0.2 ms more CPU (also §5).
 */
export class PreparedStatements {
  private readonly statements: LRUCache<string, PreparedStatement>;
  /**
   * Statements to close, sent ahead of the next prepared run (LRUCache's dispose cannot wait on PGlite).
   * A dropped statement is never run again (names are not reused), so closing it can wait.
   */
  private readonly closing: string[] = [];

  constructor(
    private readonly db: PGlite,
    max = MAX_PREPARED,
    replanAfterMs = REPLAN_AFTER_MS,
  ) {
    this.statements = new LRUCache({
      max,
      ttl: replanAfterMs,
      dispose: (statement) => this.closing.push(statement.name),
    });
  }

  /** How many statements are kept prepared (the specs read it). */
  get size(): number {
    return this.statements.size;
  }

  /**
   * `encoded`: parameters the caller's thread gave as UTF-8 (pglite-encoded-params.ts), their place in
   * `params` left null.
   */
  async query<R>(
    text: string,
    params: readonly unknown[] = [],
    encoded?: readonly EncodedParam[],
  ): Promise<Results<R>> {
    if (!REUSABLE.test(text)) {
      if (SCHEMA_CHANGE.test(text)) this.statements.clear();
      return this.db.query<R>(text, decodeParams(params, encoded));
    }
    try {
      const statement = this.statements.get(text) ?? (await this.prepare(text));
      const values: (string | Uint8Array | null)[] = params.map((param, index) => {
        if (param === null || param === undefined) return null;
        const serializer = this.db.serializers[statement.parameterTypes[index] ?? 0];
        return serializer ? serializer(param) : String(param);
      });
      for (const { index, utf8 } of encoded ?? []) {
        const type = statement.parameterTypes[index] ?? 0;
        // PGlite's serializers give every other type a string as it is; these two change it (or refuse it).
        values[index] = STRING_CHANGED_BY_SERIALIZER.has(type)
          ? (this.db.serializers[type] ?? String)(decodeParam(utf8))
          : utf8;
      }
      const messages = await this.db.execProtocolStream(
        runMessages(this.takeClosing(), statement.name, values),
        { syncToFs: false },
      );
      await this.db.syncToFs();
      return parse.parseResults(messages, this.db.parsers)[0] as Results<R>;
    } catch (error) {
      // As PGlite's query reports it (makePGliteError): the statement's text on the error.
      if (error instanceof Error) Object.assign(error, { query: text });
      throw error;
    }
  }

  private async prepare(text: string): Promise<PreparedStatement> {
    const name = `vop_prepared_${++statementsNamed}`;
    const messages = await this.db.execProtocolStream(
      Buffer.concat([
        ...this.takeClosing(),
        serialize.parse({ name, text, types: [] }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = {
      name,
      parameterTypes: parse.parseDescribeStatementResults(messages),
    };
    this.statements.set(text, statement);
    return statement;
  }

  private takeClosing(): Uint8Array[] {
    const closes = this.closing.map((name) => serialize.close({ type: 'S', name }));
    this.closing.length = 0;
    return closes;
  }
}
