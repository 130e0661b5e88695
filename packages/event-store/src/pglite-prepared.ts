import { parse, type PGlite, protocol, type Results } from '@electric-sql/pglite';
import { LRUCache } from 'lru-cache';

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

  async query<R>(text: string, params: readonly unknown[] = []): Promise<Results<R>> {
    if (!REUSABLE.test(text)) {
      if (SCHEMA_CHANGE.test(text)) this.statements.clear();
      return this.db.query<R>(text, [...params]);
    }
    try {
      const statement = this.statements.get(text) ?? (await this.prepare(text));
      const values = params.map((param, index) => {
        if (param === null || param === undefined) return null;
        const serializer = this.db.serializers[statement.parameterTypes[index] ?? 0];
        return serializer ? serializer(param) : String(param);
      });
      const messages = await this.db.execProtocolStream(
        Buffer.concat([
          ...this.takeClosing(),
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
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
