import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** What the receiver did with one request. */
export type Answer = { kind: 'status'; status: number } | { kind: 'timeout' };

export interface ChaosRequest {
  path: string;
  msgId: string;
  headers: Record<string, string>;
  body: string;
  /** 1-based attempt number of this (path, webhook-id) pair, in arrival order. */
  attempt: number;
  answer: Answer;
}

export interface ChaosReceiver {
  url(path: string): string;
  cert: string;
  requests: ChaosRequest[];
  close(): Promise<void>;
}

/**
 * An HTTPS webhook receiver (self-signed certificate for 127.0.0.1) that decides each answer with
 * `decide(path, msgId, attempt)`: a status, or a timeout (the response is held for `holdMs` and
 * only then written, after the sender has given up). Deterministic as long as `decide` is.
 */
export async function startChaosReceiver(
  decide: (path: string, msgId: string, attempt: number) => Answer | Promise<Answer>,
  holdMs: number,
): Promise<ChaosReceiver> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const requests: ChaosRequest[] = [];
  const attempts = new Map<string, number>();
  const held = new Set<NodeJS.Timeout>();
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = req.url ?? '/';
      const msgId = String(req.headers['webhook-id'] ?? '');
      const pair = `${path} ${msgId}`;
      const attempt = (attempts.get(pair) ?? 0) + 1;
      attempts.set(pair, attempt);
      const answer = await decide(path, msgId, attempt);
      requests.push({
        path,
        msgId,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
        attempt,
        answer,
      });
      if (answer.kind === 'timeout') {
        const timer = setTimeout(() => {
          held.delete(timer);
          if (!res.destroyed) res.writeHead(200).end('too late');
        }, holdMs);
        held.add(timer);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(String(answer.status));
    });
    req.on('error', () => {});
    res.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    cert: pems.cert,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
