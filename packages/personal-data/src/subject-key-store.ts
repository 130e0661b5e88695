import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { migrateSchema, type SqlClient, type SqlExecutor } from '@vop/event-store';
import { utcDay } from './daily-subject.js';
import { SubjectKeyDestroyedError, SubjectKeyRaceError } from './errors.js';
import { assertValidSubjectId } from './subject-id.js';

export const SUBJECT_KEY_BYTES = 32;

export interface KeysForOptions {
  /**
   * false: the keys read are not kept in the cache (a bulk import's millions would push out the keys
   * single checks use, `maxCachedKeys` at a time). Default true.
   */
  remember?: boolean;
  /**
   * Subjects whose ids were made just now (a new account's UUIDv7): no key can exist for them, so they
   * are not looked for before their keys are created. One that has a key after all is read then.
   */
  made?: ReadonlySet<string>;
}

export interface SubjectKeyStoreOptions {
  /** The PostgreSQL schema holding `subject_keys`; shared by every service that reads the same data. */
  schema: string;
  /**
   * How long a live key is trusted from this process's cache until the store hears of destroys (below).
   * A destroy in THIS process takes effect at once; a destroy in another process is noticed here at the
   * latest this long after it commits. Default 5000.
   */
  cacheTtlMs?: number;
  /**
   * How long a live key is trusted once the store listens for destroys: every destroy wakes every
   * store of the keystore (LISTEN/NOTIFY in the destroy's transaction), which forgets its live keys at
   * once, so this only bounds a notification lost without a reconnect. Default 300000.
   */
  listeningCacheTtlMs?: number;
  /** Most live keys remembered (the oldest go first). Default 100000. */
  maxCachedKeys?: number;
  /**
   * Most destroyed subjects remembered (the least recently asked for go first). Default 100000. A
   * forgotten one is read from the table again, where its key stays NULL.
   */
  maxRememberedDestroyed?: number;
  /** Clock for the cache, in milliseconds; tests replace it. */
  now?: () => number;
}

/** What the store knows of a subject: its live key, or that the key was destroyed. */
export type SubjectKeyState = { state: 'live'; key: Buffer } | { state: 'destroyed' };

interface CachedKey {
  key: Buffer;
  expiresAt: number;
}

interface ReadMark {
  destroysHeard: number;
  listening: boolean;
}

interface KeyRow {
  subject_id: string;
  key: Uint8Array | null;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
/** A failed LISTEN (database down) is not tried again by every read meanwhile. */
const LISTEN_RETRY_MS = 5000;

/**
 * Per-subject 256-bit keys in PostgreSQL (or PGlite). Destroying a key is the erasure: every ciphertext
 * made with it, wherever it was copied, becomes unreadable. A destroyed subject never gets a key again.
 */
export class SubjectKeyStore {
  private readonly table: string;
  private readonly now: () => number;
  private readonly liveKeys = new Map<string, CachedKey>();
  /** The destroys channel of this keystore; every store of it listens there once it has read a key. */
  private readonly destroyedChannel: string;
  /** The LISTEN on the destroys channel, once asked for; undefined again after it failed. */
  private listening: Promise<void> | undefined;
  /** Set once that LISTEN took effect: from then on a destroy anywhere is heard of here. */
  private listenInEffect = false;
  /** Counts the destroys heard of: a key read while one was heard is not cached (it may be the erased one). */
  private destroysHeard = 0;
  private listenAgainAt = 0;
  /** Destruction is permanent, so remembering it is always right; erased holders are many, so not all are. */
  private readonly destroyedSubjects: LRUCache<string, true>;
  private migrated: Promise<void> | undefined;
  /** Subjects that lookups outside a transaction asked for in this turn of the event loop. */
  private pendingLookup:
    { subjectIds: Set<string>; rows: Promise<Map<string, SubjectKeyState>> } | undefined;

  constructor(
    private readonly sql: SqlClient,
    private readonly options: SubjectKeyStoreOptions,
  ) {
    if (!SCHEMA_NAME.test(options.schema))
      throw new TypeError('Invalid schema name for the subject key store');
    this.table = `${options.schema}.subject_keys`;
    this.destroyedChannel = `${options.schema}_subject_keys_destroyed`;
    this.now = options.now ?? Date.now;
    this.destroyedSubjects = new LRUCache({ max: options.maxRememberedDestroyed ?? 100_000 });
  }

  /** How many destroyed subjects this process remembers (`maxRememberedDestroyed`). */
  get rememberedDestroyed(): number {
    return this.destroyedSubjects.size;
  }

  /**
   * Taken when a read begins: what was heard of destroys so far, and whether the store was listening
   * then. A key read before the store listened is cached only briefly: a destroy that committed before
   * the LISTEN took effect was not heard.
   */
  private readMark(): ReadMark {
    return { destroysHeard: this.destroysHeard, listening: this.listenInEffect };
  }

  /**
   * Listens for destroys from the first read on (a failed LISTEN is tried again by a later read; until
   * then the short cache lifetime holds). A wake-up also comes after a lost listening connection is back
   * (postgres-client.ts), when destroys may have gone unheard: either way every live key is forgotten.
   */
  private listenForDestroys(): Promise<void> {
    if (this.listening === undefined && this.now() >= this.listenAgainAt)
      this.listening = this.sql
        .listen(this.destroyedChannel, () => {
          this.destroysHeard += 1;
          this.liveKeys.clear();
        })
        .then(
          () => {
            this.listenInEffect = true;
          },
          () => {
            this.listening = undefined;
            this.listenAgainAt = this.now() + LISTEN_RETRY_MS;
          },
        );
    return this.listening ?? Promise.resolve();
  }

  get schema(): string {
    return this.options.schema;
  }

  /**
   * Once per store, however many services share it (the embedded process gives gateway and matching
   * one); a failed migration is tried again by the next call.
   */
  migrate(): Promise<void> {
    this.migrated ??= this.createTable()
      .then(() => this.listenForDestroys())
      .catch((error: unknown) => {
        this.migrated = undefined;
        throw error;
      });
    return this.migrated;
  }

  private async createTable(): Promise<void> {
    await migrateSchema(this.sql, this.options.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.table} (
         subject_id text PRIMARY KEY,
         key bytea,
         created_at timestamptz NOT NULL DEFAULT now(),
         destroyed_at timestamptz,
         CHECK ((key IS NULL) = (destroyed_at IS NOT NULL))
       )`,
    ]);
  }

  /**
   * The subject's key, created on first use. Throws SubjectKeyDestroyedError once the key was destroyed.
   * Inside `tx` a newly created key is not cached, because that transaction may still roll back.
   */
  async keyFor(subjectId: string, tx?: SqlExecutor): Promise<Buffer> {
    assertValidSubjectId(subjectId);
    const cached = this.cachedState(subjectId);
    if (cached?.state === 'destroyed') throw new SubjectKeyDestroyedError(subjectId);
    if (cached?.state === 'live') return cached.key;

    const executor = tx ?? this.sql;
    const heard = this.readMark();
    // Of concurrent creators exactly one insert wins; the others then read the winner's key.
    await executor.query(
      `INSERT INTO ${this.table} (subject_id, key) VALUES ($1, $2) ON CONFLICT (subject_id) DO NOTHING`,
      [subjectId, randomBytes(SUBJECT_KEY_BYTES)],
    );
    const { rows } = await executor.query<KeyRow>(
      `SELECT subject_id, key FROM ${this.table} WHERE subject_id = $1`,
      [subjectId],
    );
    const row = rows[0];
    if (row === undefined)
      throw new Error('The subject key row vanished right after it was written');
    const state = this.remember(row, tx === undefined, heard);
    if (state.state === 'destroyed') throw new SubjectKeyDestroyedError(subjectId);
    return state.key;
  }

  /**
   * The keys of many subjects, created where missing (bulk writes): one statement reads the keys
   * that exist, a second creates the missing ones and names any another writer created meanwhile, a
   * third reads those. Throws SubjectKeyDestroyedError when any subject was erased. Keys created
   * inside `tx` are not cached.
   */
  async keysFor(
    subjectIds: Iterable<string>,
    tx?: SqlExecutor,
    options: KeysForOptions = {},
  ): Promise<Map<string, Buffer>> {
    const gathered = await this.gatherKeys(subjectIds, tx, options);
    const lost = await gathered.creating;
    if (lost.length > 0) gathered.take(await this.readKeyRows(tx ?? this.sql, lost));
    return gathered.keys;
  }

  /**
   * keysFor for a writer that seals with the keys before their creation is confirmed: the made
   * subjects' fresh keys are in `keys` as soon as the existing ones are read, while their insert runs.
   * `stored` rejects with SubjectKeyRaceError when one of them had a key after all (its key here is not
   * the stored one), so nothing sealed with these keys may be written before it resolves. On PGlite an
   * import's chunk seals its new holders' names while the chunk before is written, instead of waiting
   * for that transaction to end before its keys can be made (bench/RESULTS.md §5, the two threads no longer take turns).
   */
  async keysAhead(
    subjectIds: Iterable<string>,
    tx?: SqlExecutor,
    options: KeysForOptions = {},
  ): Promise<{ keys: Map<string, Buffer>; stored: Promise<void> }> {
    const gathered = await this.gatherKeys(subjectIds, tx, options);
    const stored = gathered.creating.then((lost) => {
      if (lost.length > 0) throw new SubjectKeyRaceError();
    });
    // Awaited by the writer before it writes; a failure with nobody waiting is not unhandled.
    stored.catch(() => undefined);
    return { keys: new Map([...gathered.keys, ...gathered.fresh]), stored };
  }

  /**
   * The cached and existing keys (`keys`), and the missing ones' creation sent: `fresh` holds the keys
   * made here, `creating` names the subjects another writer gave a key first. `keys` gets the fresh
   * keys that were stored once `creating` settles; `take` adds rows read later.
   */
  private async gatherKeys(
    subjectIds: Iterable<string>,
    tx: SqlExecutor | undefined,
    options: KeysForOptions,
  ): Promise<{
    keys: Map<string, Buffer>;
    fresh: Map<string, Buffer>;
    creating: Promise<string[]>;
    take: (rows: KeyRow[]) => void;
  }> {
    const keys = new Map<string, Buffer>();
    const fresh = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const subjectId of new Set(subjectIds)) {
      assertValidSubjectId(subjectId);
      const cached = this.cachedState(subjectId);
      if (cached?.state === 'destroyed') throw new SubjectKeyDestroyedError(subjectId);
      if (cached?.state === 'live') keys.set(subjectId, cached.key);
      else missing.push(subjectId);
    }
    const executor = tx ?? this.sql;
    const heard = this.readMark();
    const take = (rows: KeyRow[]) => {
      for (const row of rows) {
        const state = this.remember(row, tx === undefined && options.remember !== false, heard);
        if (state.state === 'destroyed') throw new SubjectKeyDestroyedError(row.subject_id);
        keys.set(row.subject_id, state.key);
      }
    };
    const gathered = { keys, fresh, creating: Promise.resolve<string[]>([]), take };
    if (missing.length === 0) return gathered;
    // A re-import's subjects mostly have keys already: they are read, and no key is made for them.
    const made = options.made;
    const unmade =
      made === undefined ? missing : missing.filter((subjectId) => !made.has(subjectId));
    if (unmade.length > 0) take(await this.readKeyRows(executor, unmade));
    const absent = missing.filter((subjectId) => !keys.has(subjectId));
    if (absent.length === 0) return gathered;
    // One call into the random generator for all new keys.
    const bytes = randomBytes(SUBJECT_KEY_BYTES * absent.length);
    absent.forEach((subjectId, index) =>
      fresh.set(
        subjectId,
        bytes.subarray(index * SUBJECT_KEY_BYTES, (index + 1) * SUBJECT_KEY_BYTES),
      ),
    );
    // Only the subjects another writer gave a key meanwhile come back: the keys made here are known, and
    // a row for each (an import's every new holder) cost PGlite's thread a quarter of the statement
    // (bench/RESULTS.md §5, what the import's statements send back).
    gathered.creating = executor
      .query<{ subject_id: string }>(
        `WITH fresh AS (
           SELECT subject_id, decode(key, 'hex') AS key FROM unnest($1::text[], $2::text[]) AS fresh(subject_id, key)
         ), inserted AS (
           INSERT INTO ${this.table} (subject_id, key) SELECT subject_id, key FROM fresh
           ON CONFLICT (subject_id) DO NOTHING RETURNING subject_id
         )
         SELECT subject_id FROM fresh WHERE subject_id NOT IN (SELECT subject_id FROM inserted)`,
        [absent, absent.map((subjectId) => (fresh.get(subjectId) as Buffer).toString('hex'))],
      )
      .then(({ rows: raced }) => {
        const lost = new Set(raced.map((row) => row.subject_id));
        take(
          absent.flatMap((subject_id) =>
            lost.has(subject_id) ? [] : [{ subject_id, key: fresh.get(subject_id) as Buffer }],
          ),
        );
        return [...lost];
      });
    return gathered;
  }

  private async readKeyRows(executor: SqlExecutor, subjectIds: string[]): Promise<KeyRow[]> {
    const { rows } = await executor.query<KeyRow>(
      `SELECT subject_id, key FROM ${this.table} WHERE subject_id = ANY($1::text[])`,
      [subjectIds],
    );
    return rows;
  }

  /**
   * What is known of each subject, without creating keys: subjects that never had a key are absent from the
   * map. One query for all subjects not in the cache.
   */
  async lookup(
    subjectIds: Iterable<string>,
    tx?: SqlExecutor,
  ): Promise<Map<string, SubjectKeyState>> {
    const found = new Map<string, SubjectKeyState>();
    const missing: string[] = [];
    for (const subjectId of new Set(subjectIds)) {
      assertValidSubjectId(subjectId);
      const cached = this.cachedState(subjectId);
      if (cached === undefined) missing.push(subjectId);
      else found.set(subjectId, cached);
    }
    if (missing.length === 0) return found;
    const known =
      tx === undefined ? await this.lookupTogether(missing) : await this.readKeys(missing, tx);
    for (const subjectId of missing) {
      const state = known.get(subjectId);
      if (state !== undefined) found.set(subjectId, state);
    }
    return found;
  }

  /**
   * Concurrent callers (one per answered verification) share one query: the lookups of one turn of the
   * event loop are read together.
   */
  private lookupTogether(subjectIds: string[]): Promise<Map<string, SubjectKeyState>> {
    if (this.pendingLookup === undefined) {
      const pending = new Set<string>();
      const rows = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.pendingLookup = undefined;
        return this.readKeys([...pending]);
      });
      this.pendingLookup = { subjectIds: pending, rows };
    }
    for (const subjectId of subjectIds) this.pendingLookup.subjectIds.add(subjectId);
    return this.pendingLookup.rows;
  }

  private async readKeys(
    subjectIds: string[],
    tx?: SqlExecutor,
  ): Promise<Map<string, SubjectKeyState>> {
    const heard = this.readMark();
    const { rows } = await (tx ?? this.sql).query<KeyRow>(
      `SELECT subject_id, key FROM ${this.table} WHERE subject_id = ANY($1::text[])`,
      [subjectIds],
    );
    const known = new Map<string, SubjectKeyState>();
    for (const row of rows) known.set(row.subject_id, this.remember(row, tx === undefined, heard));
    return known;
  }

  /**
   * Destroys the subject's key (the erasure). Idempotent; a subject that never had a key is marked destroyed
   * too, so it can never get one.
   */
  async destroy(subjectId: string, tx?: SqlExecutor): Promise<void> {
    assertValidSubjectId(subjectId);
    // Dropped before the write: even if tx rolls back, a cache miss only costs a read.
    this.liveKeys.delete(subjectId);
    await (tx ?? this.sql).query(
      `INSERT INTO ${this.table} (subject_id, key, destroyed_at) VALUES ($1, NULL, now())
       ON CONFLICT (subject_id) DO UPDATE SET key = NULL, destroyed_at = COALESCE(${this.table}.destroyed_at, now())`,
      [subjectId],
    );
    // Sent when the destroy commits: every store of the keystore forgets its live keys then.
    await this.sql.notify(this.destroyedChannel, tx);
    if (tx === undefined) this.destroyedSubjects.set(subjectId, true);
  }

  /**
   * Retention: destroys the keys of daily subjects `<prefix><yyyy-mm-dd>` whose whole UTC day lies before
   * `before` (the day is earlier than before's UTC day). Returns the subject ids destroyed by this call.
   */
  async destroyOlderThan(prefix: string, before: Date, tx?: SqlExecutor): Promise<string[]> {
    if (prefix.includes(':'))
      throw new TypeError("A personal-data subject prefix must not contain ':'");
    if (Number.isNaN(before.getTime())) throw new RangeError('destroyOlderThan needs a valid date');
    const { rows } = await (tx ?? this.sql).query<{ subject_id: string }>(
      `UPDATE ${this.table} SET key = NULL, destroyed_at = now()
        WHERE key IS NOT NULL
          AND left(subject_id, length($1)) = $1
          AND substr(subject_id, length($1) + 1) ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
          AND substr(subject_id, length($1) + 1) < $2
        RETURNING subject_id`,
      [prefix, utcDay(before)],
    );
    const destroyed = rows.map((row) => row.subject_id);
    if (destroyed.length > 0) await this.sql.notify(this.destroyedChannel, tx);
    for (const subjectId of destroyed) {
      this.liveKeys.delete(subjectId);
      if (tx === undefined) this.destroyedSubjects.set(subjectId, true);
    }
    return destroyed.sort();
  }

  private cachedState(subjectId: string): SubjectKeyState | undefined {
    if (this.destroyedSubjects.get(subjectId) === true) return { state: 'destroyed' };
    const cached = this.liveKeys.get(subjectId);
    if (cached === undefined) {
      this.listenForDestroys();
      return undefined;
    }
    if (cached.expiresAt <= this.now()) {
      this.liveKeys.delete(subjectId);
      return undefined;
    }
    return { state: 'live', key: cached.key };
  }

  /**
   * Caches only what committed data showed (outside a transaction), since a transaction may roll back,
   * and a live key only if no destroy was heard of since the read began (`heard`): it may be the one
   * destroyed, read from a snapshot before the destroy committed.
   */
  private remember(row: KeyRow, committed: boolean, heard: ReadMark): SubjectKeyState {
    if (row.key === null) {
      if (committed) this.destroyedSubjects.set(row.subject_id, true);
      return { state: 'destroyed' };
    }
    const key = Buffer.from(row.key);
    if (key.length !== SUBJECT_KEY_BYTES)
      throw new Error('A stored subject key has the wrong length');
    if (committed && heard.destroysHeard === this.destroysHeard) {
      const ttlMs = heard.listening
        ? (this.options.listeningCacheTtlMs ?? 300_000)
        : (this.options.cacheTtlMs ?? 5000);
      this.liveKeys.delete(row.subject_id);
      this.liveKeys.set(row.subject_id, { key, expiresAt: this.now() + ttlMs });
      // Insertion order is age: the oldest entry goes first.
      if (this.liveKeys.size > (this.options.maxCachedKeys ?? 100_000))
        this.liveKeys.delete(this.liveKeys.keys().next().value as string);
    }
    return { state: 'live', key };
  }
}
