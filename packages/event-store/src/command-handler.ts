import { ConcurrencyError } from './concurrency-error.js';
import type { EventStore } from './event-store.js';
import type { ExpectedVersion, RecordedEvent, SqlExecutor } from './types.js';

/** An event as a decider decides it: a type and its data. */
export interface DecidedEvent {
  type: string;
  data: unknown;
}

/** A pure decide/evolve pair and the state of a stream that has no event yet. */
export interface Decider<Command, Event extends DecidedEvent, State> {
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
  initialState: () => State;
}

export interface AggregateOptions<Event extends DecidedEvent> {
  /** Read inside the caller's transaction. */
  tx?: SqlExecutor;
  /** A stored event as the decider's event (a zod parse at the boundary); default: its type and data. */
  parse?: (event: RecordedEvent) => Event;
}

export interface AggregatedStream<State> {
  state: State;
  /** How many events the stream holds: the version to append at. */
  version: number;
  stored: RecordedEvent[];
}

/** Reads a stream and folds its events into the decider's state. */
export async function aggregateStream<Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<never, Event, State>, 'evolve' | 'initialState'>,
  options: AggregateOptions<Event> = {},
): Promise<AggregatedStream<State>> {
  const stored = await store.readStream(streamId, options.tx ? { tx: options.tx } : {});
  const parse = options.parse ?? ((event: RecordedEvent) => asDecided<Event>(event));
  const state = stored.map(parse).reduce(decider.evolve, decider.initialState());
  return { state, version: stored.length, stored };
}

export interface CommandResult<Event extends DecidedEvent, State> {
  /** The events appended, as stored (after `beforeAppend`); empty when the decider decided none. */
  newEvents: Event[];
  newState: State;
  nextExpectedVersion: number;
  /** The appended events with their ids and positions. */
  recorded: RecordedEvent[];
}

export interface HandleCommandOptions<
  Event extends DecidedEvent,
  State,
> extends AggregateOptions<Event> {
  /** Stored with every new event; a function reads it off the stream (e.g. the causation). */
  metadata?:
    Record<string, string> | ((stored: readonly RecordedEvent[]) => Record<string, string>);
  /** Default: the version read, so a writer that appended since makes it throw ConcurrencyError. */
  expectedVersion?: ExpectedVersion;
  /** Without `tx`: runs in all, each in a transaction of its own, while a concurrent writer wins. */
  attempts?: number;
  /** In the transaction, before the append: rewrites the decided events (e.g. encrypts names). */
  beforeAppend?: (events: Event[], tx: SqlExecutor) => Promise<Event[]>;
  /** In the transaction, after the append: the read models written inline. */
  afterAppend?: (result: CommandResult<Event, State>, tx: SqlExecutor) => Promise<void>;
}

/**
 * Loads the stream, decides, and appends the new events at the version read, all in one transaction
 * (the caller's `tx`, or one of its own). Nothing is appended when the decider decides no event.
 * @throws ConcurrencyError when another writer appended to the stream first (after `attempts`).
 */
export async function handleCommand<Command, Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  options: HandleCommandOptions<Event, State> = {},
): Promise<CommandResult<Event, State>> {
  const handleIn = (tx: SqlExecutor) =>
    decideAndAppend(store, streamId, decider, command, { ...options, tx });
  if (options.tx !== undefined) return handleIn(options.tx);
  const attempts = options.attempts ?? 1;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await store.sql.transaction(handleIn);
    } catch (error) {
      if (error instanceof ConcurrencyError && attempt < attempts) continue;
      throw error;
    }
  }
}

async function decideAndAppend<Command, Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  options: HandleCommandOptions<Event, State> & { tx: SqlExecutor },
): Promise<CommandResult<Event, State>> {
  const { tx } = options;
  const { state, version, stored } = await aggregateStream(store, streamId, decider, options);
  const decided = decider.decide(command, state);
  if (decided.length === 0)
    return { newEvents: [], newState: state, nextExpectedVersion: version, recorded: [] };
  const newEvents = options.beforeAppend ? await options.beforeAppend(decided, tx) : decided;
  const metadata =
    typeof options.metadata === 'function' ? options.metadata(stored) : options.metadata;
  const appended = await store.append(
    streamId,
    newEvents.map(({ type, data }) => ({ type, data, ...(metadata && { metadata }) })),
    { expectedVersion: options.expectedVersion ?? version, tx },
  );
  const result: CommandResult<Event, State> = {
    newEvents,
    newState: newEvents.reduce(decider.evolve, state),
    nextExpectedVersion: appended.nextExpectedVersion,
    recorded: appended.events,
  };
  await options.afterAppend?.(result, tx);
  return result;
}

function asDecided<Event extends DecidedEvent>(event: RecordedEvent): Event {
  return { type: event.type, data: event.data } as Event;
}
