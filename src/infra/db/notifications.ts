import pg from 'pg';
import type { Database } from './database.ts';

export interface ChannelHandlers {
  /** One NOTIFY on the channel, after the transaction that sent it committed. */
  message(payload: string): void;
  /**
   * Whether notifications are being received. False when the listening connection is lost
   * (anything sent meanwhile is lost too), true again once it listens anew; a subscriber that
   * caches must stop trusting its cache on false and start from empty on true.
   */
  listening(on: boolean): void;
}

export interface ChannelSubscription {
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;

/**
 * LISTEN on a channel of the service's database. PGlite delivers its own NOTIFYs in process, during
 * the query whose commit sent them. On PostgreSQL a dedicated connection (outside the pool: LISTEN
 * holds its session) receives them from every instance on the database, and reconnects when lost.
 */
export async function listenChannel(
  database: Database,
  channel: string,
  handlers: ChannelHandlers,
): Promise<ChannelSubscription> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  if (database.pglite) {
    const unlisten = await database.pglite.listen(channel, handlers.message);
    handlers.listening(true);
    return {
      async close() {
        handlers.listening(false);
        if (!database.pglite!.closed) await unlisten().catch(() => {});
      },
    };
  }
  const connectionString = database.connectionString!;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
    const lost = () => {
      if (client !== c) return;
      client = null;
      handlers.listening(false);
      c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === channel) handlers.message(n.payload ?? '');
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (closed || client !== c) return;
      handlers.listening(true);
    } catch {
      lost();
    }
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      handlers.listening(false);
      await c?.end().catch(() => {});
    },
  };
}
