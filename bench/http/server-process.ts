import { fork, type ChildProcess } from 'node:child_process';
import { serviceNodeFlags } from '../node-flags.ts';
import type { RssSnapshot } from '../rss.ts';

export type ServerRequest =
  | { id: number; type: 'limit'; body: string; contentType: string }
  | { id: number; type: 'close-limit'; port: number }
  | { id: number; type: 'rss' }
  | { id: number; type: 'reset-rss' }
  | { id: number; type: 'cpu' }
  | { id: number; type: 'profile-start' }
  | { id: number; type: 'profile-stop'; file: string }
  | { id: number; type: 'stop' };

type Without<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never;

export interface ServerReply {
  id: number;
  url?: string;
  port?: number;
  rss?: RssSnapshot;
  /** CPU time (user + system) of the server process so far, microseconds. */
  cpuUs?: number;
  error?: string;
}

export interface ServerOptions {
  databaseUrl: string | null;
  dataDir: string;
  now: Date;
  authCacheTtlMs: number;
  /** SCORE_CACHE_TTL_MS of the service (0 turns the score cache off); the service's default when absent. */
  scoreCacheTtlMs?: number;
}

/** The service under test, running in its own process (bench/http/server.ts), driven over IPC. */
export class ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Memory of the service once started and listening, before any load. */
  readonly ready: RssSnapshot;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: ServerReply) => void>();
  readonly #exited: Promise<void>;
  #next = 1;

  private constructor(child: ChildProcess, url: string, ready: RssSnapshot) {
    this.#child = child;
    this.url = url;
    this.ready = ready;
    this.pid = child.pid!;
    child.on('message', (reply: ServerReply) => {
      const resolve = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      resolve?.(reply);
    });
    // A service that dies mid-run fails whatever the bench was waiting for, instead of hanging it.
    this.#exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        for (const [id, settle] of this.#pending)
          settle({ id, error: `bench server exited (${signal ?? code})` });
        this.#pending.clear();
        resolve();
      }),
    );
  }

  static async start(options: ServerOptions): Promise<ServerProcess> {
    const child = fork(new URL('./server.ts', import.meta.url).pathname, [], {
      // The service's own flags (npm start), not the bench process's.
      execArgv: serviceNodeFlags(),
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BENCH_DATABASE_URL: options.databaseUrl ?? '',
        BENCH_DATA_DIR: options.dataDir,
        BENCH_NOW: options.now.toISOString(),
        AUTH_CACHE_TTL_MS: String(options.authCacheTtlMs),
        RUN_WORKERS: 'true',
        ...(options.scoreCacheTtlMs !== undefined
          ? { SCORE_CACHE_TTL_MS: String(options.scoreCacheTtlMs) }
          : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<ServerReply>((resolve, reject) => {
      child.once('message', (reply: ServerReply) =>
        reply.url ? resolve(reply) : reject(new Error(reply.error)),
      );
      child.once('exit', (code) =>
        reject(new Error(`bench server exited with code ${code} before it was ready`)),
      );
    });
    return new ServerProcess(child, ready.url!, ready.rss!);
  }

  #ask(request: Without<ServerRequest, 'id'>): Promise<ServerReply> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) {
        reject(new Error('bench server is not running'));
        return;
      }
      this.#pending.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)));
      this.#child.send({ ...request, id } as ServerRequest);
    });
  }

  /** Starts a bare Fastify server in the service's process that answers every GET with `body`. */
  async startLimit(body: string, contentType: string): Promise<string> {
    const reply = await this.#ask({ type: 'limit', body, contentType });
    return `http://127.0.0.1:${reply.port}`;
  }

  async closeLimit(url: string): Promise<void> {
    await this.#ask({ type: 'close-limit', port: Number(new URL(url).port) });
  }

  async rss(): Promise<RssSnapshot> {
    return (await this.#ask({ type: 'rss' })).rss!;
  }

  async resetRss(): Promise<void> {
    await this.#ask({ type: 'reset-rss' });
  }

  /** CPU time (user + system) the server process has used so far, microseconds. */
  async cpuUs(): Promise<number> {
    return (await this.#ask({ type: 'cpu' })).cpuUs!;
  }

  /** CPU-profiles the server process from now until profileStop (only the measured run, not the limit). */
  async profileStart(): Promise<void> {
    await this.#ask({ type: 'profile-start' });
  }

  async profileStop(file: string): Promise<void> {
    await this.#ask({ type: 'profile-stop', file });
  }

  /** Stops the service cleanly (the PGlite folder must be closed before anyone else opens it). */
  async stop(): Promise<RssSnapshot> {
    const reply = await this.#ask({ type: 'stop' });
    await this.#exited;
    return reply.rss!;
  }

  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}
