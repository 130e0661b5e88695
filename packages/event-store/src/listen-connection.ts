import pg from 'pg';

export interface ListenConnectionOptions {
  connectionString: string;
  applicationName: string;
  /** Each channel's notifications. */
  onNotify: (channel: string) => void;
  /** The connection is back after a loss: notifications sent meanwhile are lost. */
  onReconnected: () => void;
  /** Once per loss of the connection (not per failed reconnect attempt). */
  onError: (error: Error) => void;
  /** A query on an idle connection this often finds a connection the network lost silently. */
  pingIntervalMs?: number;
}

export interface ListenConnection {
  listen(channel: string): Promise<void>;
  unlisten(channel: string): Promise<void>;
  close(): Promise<void>;
}

const MAX_RECONNECT_DELAY_MS = 5_000;
const PING_INTERVAL_MS = 30_000;

const asError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(String(error));

/**
 * One LISTEN connection that reconnects and re-LISTENs for as long as it is open. Every client it makes
 * keeps an 'error' listener for its whole life: node-postgres emits 'error' more than once on a dying
 * socket, and an unheard one ends the process (pg-listen heard only the first).
 */
export async function openListenConnection(
  options: ListenConnectionOptions,
): Promise<ListenConnection> {
  const channels = new Set<string>();
  let current: pg.Client | undefined;
  let closed = false;
  let reconnecting: Promise<void> | undefined;

  async function connect(): Promise<pg.Client> {
    const created = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
      keepAlive: true,
    });
    created.on('error', (error) => lost(created, error));
    created.on('end', () => lost(created, new Error('The LISTEN connection ended')));
    created.on('notification', (message) => {
      if (created === current) options.onNotify(message.channel);
    });
    try {
      await created.connect();
      for (const channel of channels)
        await created.query(`LISTEN ${created.escapeIdentifier(channel)}`);
    } catch (error) {
      await created.end().catch(() => undefined);
      throw error;
    }
    return created;
  }

  function lost(client: pg.Client, error: Error): void {
    if (client !== current || closed) return;
    current = undefined;
    options.onError(error);
    void client.end().catch(() => undefined);
    reconnecting ??= reconnect().finally(() => (reconnecting = undefined));
  }

  async function reconnect(): Promise<void> {
    for (let attempt = 0; !closed; attempt++) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(250 * 2 ** attempt, MAX_RECONNECT_DELAY_MS)).unref(),
      );
      if (closed) return;
      try {
        const client = await connect();
        if (closed) {
          await client.end().catch(() => undefined);
          return;
        }
        current = client;
        options.onReconnected();
        return;
      } catch {
        // Still down: the loss was reported once; the next attempt waits longer.
      }
    }
  }

  current = await connect();
  const ping = setInterval(() => {
    const client = current;
    client?.query('SELECT 1').catch((error: unknown) => lost(client, asError(error)));
  }, options.pingIntervalMs ?? PING_INTERVAL_MS);
  ping.unref();

  return {
    async listen(channel) {
      if (channels.has(channel)) return;
      channels.add(channel);
      // A connection lost meanwhile is reported by its 'error'; its successor LISTENs to every channel in the set.
      await current?.query(`LISTEN ${current.escapeIdentifier(channel)}`).catch(() => undefined);
    },
    async unlisten(channel) {
      if (!channels.delete(channel)) return;
      await current?.query(`UNLISTEN ${current.escapeIdentifier(channel)}`).catch(() => undefined);
    },
    async close() {
      closed = true;
      clearInterval(ping);
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
