import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import type { AppContext } from '../../src/context.ts';
import { emitEvent } from '../../src/webhooks/emit.ts';
import type { EventData } from '../../src/webhooks/events.ts';
import type { ExtraDestination } from '../../src/webhooks/jobs.ts';
import type { EventType } from '../../src/core/catalog.ts';

/** A request the test receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * An HTTPS endpoint on 127.0.0.1 with a self-signed certificate made for this run (the
 * deliverer is told to trust it through configureWebhooks({ ca })). Each path answers the
 * statuses queued for it in order, then its last one again; 200 when nothing is queued.
 */
export interface Receiver {
  url(path: string): string;
  cert: string;
  received: Received[];
  answer(path: string, ...statuses: number[]): void;
  requestsTo(path: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const received: Received[] = [];
  const plans = new Map<string, number[]>();
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({
        path,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const plan = plans.get(path) ?? [];
      const status = plan.length > 1 ? plan.shift()! : (plan[0] ?? 200);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    cert: pems.cert,
    received,
    answer(path, ...statuses) {
      plans.set(path, statuses);
    },
    requestsTo: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Records an event the way a domain does: emitEvent inside a transaction. Delivery does not read the
 * data, so these tests may send any (a few fields, or none): it is passed as the type's data unchecked.
 */
export async function emit(
  ctx: AppContext,
  workspaceId: string,
  type: EventType,
  data: Record<string, unknown>,
  extra?: ExtraDestination[],
): Promise<string> {
  return ctx.db.transaction().execute((trx) =>
    emitEvent(ctx, trx, {
      workspaceId,
      type,
      data: data as EventData<EventType>,
      ...(extra ? { extra } : {}),
    }),
  );
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  ms = 20_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
