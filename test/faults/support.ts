import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { DB } from '../../src/infra/db/types.ts';

/** Shared plumbing of the fault suite: bounded polling, real sockets, child-process services. */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Polls `check` until it returns something other than undefined; throws after `timeoutMs`
 * with `what` and the last value seen, so a stuck case fails with a reason instead of hanging.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
}

/** A TCP port free right now on 127.0.0.1 (for a child process that must be told its port). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Makes an in-process app listen on an ephemeral port; returns http://127.0.0.1:port. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as net.AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  json: any;
  ms: number;
}

/** One request over a real socket (undici fetch). */
export async function http(
  origin: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const started = performance.now();
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${origin}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ms: performance.now() - started };
}

/** Asserts an RFC 9457 problem+json answer (content type, type/title/status/detail). */
export function expectProblemJson(
  res: { status: number; contentType: string | null | undefined; body: any; raw?: string },
  status?: number,
  title?: string,
): void {
  const where = `${res.status} ${res.raw ?? JSON.stringify(res.body)}`.slice(0, 500);
  if (status !== undefined) expect(res.status, where).toBe(status);
  expect(String(res.contentType), where).toMatch(/^application\/problem\+json/);
  expect(res.body, where).toMatchObject({
    type: expect.any(String),
    title: title ?? expect.any(String),
    status: res.status,
    detail: expect.any(String),
  });
}

export function problemOf(res: HttpResult) {
  return { status: res.status, contentType: res.headers.get('content-type'), body: res.json, raw: res.text };
}

export interface ChildService {
  origin: string;
  child: ChildProcess;
  /** The last 64 KB the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  /** Resolves with the exit code/signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the real service (`node src/main.ts`) with the given environment on a free port and
 * waits until /readyz answers 200. The Node binary is this test process's own (the pinned Node
 * 24 the suite runs on).
 */
export async function spawnService(
  env: Record<string, string>,
  options: { readyTimeoutMs?: number; port?: number } = {},
): Promise<ChildService> {
  // A fixed port when a load balancer's configuration names it (a restart must come back there).
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'warn',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: '0', // any free port: several services may run at once
      // One fixed key for every child, so a restarted service opens what the first one sealed.
      ENCRYPTION_KEYS: `faults:${Buffer.alloc(32, 1).toString('base64')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const origin = `http://127.0.0.1:${port}`;
  try {
    await until(
      'the child service to become ready',
      async () => {
        if (gone) throw new Error(`the child exited: ${output}`);
        const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => null);
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: options.readyTimeoutMs ?? 60_000, intervalMs: 200 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n--- child output ---\n${output}`, { cause: error });
  }
  return { origin, child, output: () => output, exited };
}

/** Sends a signal to a child service and waits (bounded) until it has exited. */
export async function killService(service: ChildService, signal: NodeJS.Signals): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill(signal);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`the child did not exit after ${signal}`)), 30_000).unref(),
  );
  await Promise.race([service.exited, timeout]);
}

export interface RawExchange {
  /** Everything the server wrote, as latin1 text. */
  response: string;
  /** The status code of the first response line, or null when the server wrote nothing. */
  status: number | null;
  /** True when the server closed the connection; false when the deadline came first. */
  closedByServer: boolean;
  /** Milliseconds from connecting until the server closed (or the deadline). */
  ms: number;
}

/**
 * Writes `chunks` to a raw TCP connection, `gapMs` apart (a slow client), stopping as soon as the
 * server closes, and collects the answer until the server closes or `deadlineMs` passes.
 */
export function rawExchange(
  origin: string,
  chunks: Array<string | Buffer>,
  options: { gapMs?: number; deadlineMs: number },
): Promise<RawExchange> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const started = performance.now();
    const received: Buffer[] = [];
    let closed = false;
    const socket = net.connect(Number(port), hostname);
    const finish = (closedByServer: boolean) => {
      if (closed) return;
      closed = true;
      clearTimeout(deadline);
      socket.destroy();
      const response = Buffer.concat(received).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(response);
      resolve({
        response,
        status: match ? Number(match[1]) : null,
        closedByServer,
        ms: performance.now() - started,
      });
    };
    const deadline = setTimeout(() => finish(false), options.deadlineMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (closed || socket.destroyed || !socket.writable) return;
        socket.write(chunk);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
    });
  });
}

/**
 * Exactly-once scoring of finished audits, read from the database: one score_log row per platform
 * for each audit and one audit.completed event per audit (no duplicates from retries or other workers).
 */
export async function expectScoredOnce(
  db: Kysely<DB>,
  auditIds: string[],
  platformCount: number,
): Promise<void> {
  const logs = await db
    .selectFrom('score_log')
    .select(['audit_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('audit_id', 'in', auditIds)
    .groupBy('audit_id')
    .execute();
  expect(logs).toHaveLength(auditIds.length);
  for (const row of logs) expect(Number(row.n), String(row.audit_id)).toBe(platformCount);
  const events = await db
    .selectFrom('events')
    .select(sql<string>`data->>'audit_id'`.as('audit_id'))
    .where('type', '=', 'audit.completed')
    .execute();
  expect(events.map((e) => e.audit_id).sort()).toEqual([...auditIds].sort());
}
