import { ConcurrencyError, type EventStore } from '@vop/event-store';
import { loopFailureLog } from '@vop/http';
import type { Logger } from '@vop/observability';

/**
 * A load wakes every instance at once (NOTIFY on the same database, replayed after a lost listen
 * connection): this look at the stream's version only covers a notification lost some other way.
 */
const DEFAULT_REFRESH_MS = 30_000;
const MAX_ATTEMPTS = 3;

/** A load event as a stream of admin-loaded tables holds it: the whole table, numbered. */
export interface LoadEvent<Data extends { version: number }> {
  type: string;
  data: Data;
}

/**
 * The last load of an admin-loaded, event-sourced table (the scheme directory, the bank-code table),
 * held in memory in the form requests read (`Held`). Each load is one event on `stream` and a
 * notification with it; every gateway instance re-reads the last one when notified (and when a slow
 * look finds the stream's version moved), so no request waits on the database for it.
 */
export class LatestLoad<Data extends { version: number }, Held> {
  private held: Held | undefined;
  private heldVersion = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(
    private readonly options: {
      store: EventStore;
      stream: string;
      /** What the logs call the table. */
      name: string;
      /** A stored event's data, checked (zod). */
      parse: (data: unknown) => Data;
      /** The in-memory form, built once per load. */
      hold: (data: Data) => Held;
      logger: Logger;
      refreshMs?: number;
    },
  ) {}

  /** The table held, or undefined while none has been loaded. */
  current(): Held | undefined {
    return this.held;
  }

  /** Decides the next load on top of the stream's version, appends it and holds it at once. */
  async load(decide: (version: number) => LoadEvent<Data>[]): Promise<Data> {
    const { store, stream } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        const [event] = await store.sql.transaction(async (tx) => {
          const version = await store.streamVersion(stream, { tx });
          const events = decide(version);
          await store.append(
            stream,
            events.map((each) => ({ type: each.type, data: each.data })),
            { expectedVersion: version, tx },
          );
          await store.sql.notify(this.channel, tx);
          return events;
        });
        if (event === undefined) throw new Error(`a ${this.options.name} load decided no event`);
        this.apply(event.data);
        return event.data;
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  /** Reads the latest load when the stream has moved past the one held. */
  async refresh(): Promise<void> {
    const { store, stream } = this.options;
    const version = await store.streamVersion(stream);
    if (version === 0 || version === this.heldVersion) return;
    const last = await store.readLastEvent(stream);
    if (last === undefined) return;
    this.apply(this.options.parse(last.data));
  }

  async start(): Promise<void> {
    const refreshFailed = loopFailureLog(
      this.options.logger,
      `${this.options.name} refresh failed; retrying`,
    );
    // Listening first: a load committed between the first read and the LISTEN is not missed.
    this.stopListening = await this.options.store.sql.listen(this.channel, () => {
      this.refresh().catch(refreshFailed);
    });
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch(refreshFailed);
    }, this.options.refreshMs ?? DEFAULT_REFRESH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Notified at each load's commit, to every instance on the same database. */
  private get channel(): string {
    return `${this.options.store.schema}_${this.options.stream.replaceAll('-', '_')}_loaded`;
  }

  private apply(data: Data): void {
    if (data.version <= this.heldVersion) return;
    this.held = this.options.hold(data);
    this.heldVersion = data.version;
    this.options.logger.info({ version: data.version }, `${this.options.name} loaded`);
  }
}
