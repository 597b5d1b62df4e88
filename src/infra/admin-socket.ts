import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Where a command prints: the terminal, or this socket back to the CLI that asked. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}
import { format } from 'node:util';

/**
 * The running service's admin socket: a Unix domain socket (default `DATA_DIR/admin.sock`) on which
 * the `brandhealth` CLI sends its arguments and the service runs that CLI invocation on its own
 * context, streaming the output back (protocol: src/cli/admin-client.ts). With PGlite the service
 * holds the only connection to the data folder, so this is how the CLI works while it runs; on
 * PostgreSQL it saves the CLI opening a pool, migrating and starting the job engine per call.
 *
 * Authority is the file permission: the socket is created 0600, owned by the service's user, and
 * every connection is refused unless it still is (a socket someone loosened, or replaced, is
 * refused; a superuser bypasses file modes, so the service checks them itself).
 */

export type RunInvocation = (argv: readonly string[], io: CliIo) => Promise<number>;

/** EX_NOPERM: the socket's permissions are not the service's own 0600. */
const EXIT_NOPERM = 77;
const MAX_REQUEST_BYTES = 64 * 1024;

/** Output of the invocation running in this async context (console.* included). */
const currentIo = new AsyncLocalStorage<CliIo>();
let consoleRouted = false;

/**
 * Commands print through their `io`, but a command written with console.log must reach the CLI
 * too: inside an invocation, console output goes to its caller (any other console use is unchanged).
 */
function routeConsole(): void {
  if (consoleRouted) return;
  consoleRouted = true;
  for (const [method, stream] of [
    ['log', 'out'],
    ['info', 'out'],
    ['error', 'err'],
    ['warn', 'err'],
  ] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const io = currentIo.getStore();
      if (io) io[stream](`${format(...args)}\n`);
      else original(...args);
    };
  }
}

function permissionProblem(socketPath: string): string | null {
  try {
    const stat = fs.lstatSync(socketPath);
    if (!stat.isSocket()) return `${socketPath} is not a socket`;
    if ((stat.mode & 0o777) !== 0o600)
      return `${socketPath} has mode ${(stat.mode & 0o777).toString(8)}, not 600`;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
      return `${socketPath} is owned by uid ${stat.uid}, not the service's`;
    return null;
  } catch {
    return `${socketPath} is gone`;
  }
}

/** True when a service is accepting connections on `socketPath`. */
function listening(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

export interface AdminSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on `socketPath` and runs each request with `run`, one at a time (so a command's
 * working directory, the CLI's, can be entered and left without mixing with another's).
 * Resolves null, with the reason in `onSkip`, when the socket cannot be created.
 */
export async function startAdminSocket(
  socketPath: string,
  run: RunInvocation,
  onSkip: (reason: string) => void,
): Promise<AdminSocket | null> {
  if (!fs.existsSync(path.dirname(socketPath))) {
    onSkip(`folder ${path.dirname(socketPath)} does not exist`);
    return null;
  }
  if (fs.existsSync(socketPath)) {
    if (await listening(socketPath)) {
      onSkip(`another process already serves ${socketPath}`);
      return null;
    }
    fs.rmSync(socketPath, { force: true }); // left by a service that died
  }
  routeConsole();

  let queue: Promise<unknown> = Promise.resolve();
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    let request = '';
    let started = false;
    const send = (message: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
    };
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      if (started) return;
      request += chunk;
      if (request.length > MAX_REQUEST_BYTES) return socket.destroy();
      const newline = request.indexOf('\n');
      if (newline < 0) return;
      started = true;
      const refused = permissionProblem(socketPath);
      if (refused) {
        send({
          err: `brandhealth: the service refuses its admin socket: ${refused}; restart the service to recreate it\n`,
        });
        send({ exit: EXIT_NOPERM });
        return socket.end();
      }
      let argv: string[];
      let cwd: string;
      try {
        const parsed = JSON.parse(request.slice(0, newline)) as { argv?: unknown; cwd?: unknown };
        if (!Array.isArray(parsed.argv) || !parsed.argv.every((a) => typeof a === 'string'))
          throw new Error('argv');
        argv = parsed.argv;
        cwd = typeof parsed.cwd === 'string' ? parsed.cwd : process.cwd();
      } catch {
        send({ err: 'brandhealth: malformed admin request\n' });
        send({ exit: 2 });
        return socket.end();
      }
      const io: CliIo = { out: (text) => send({ out: text }), err: (text) => send({ err: text }) };
      queue = queue.then(async () => {
        // Relative paths in arguments (--out sandbox.json, an import file) mean the CLI's folder.
        const home = process.cwd();
        const enter = fs.existsSync(cwd) ? cwd : home;
        process.chdir(enter);
        try {
          send({ exit: await currentIo.run(io, () => run(argv, io)) });
        } catch (error) {
          send({ err: `brandhealth: ${(error as Error)?.message ?? error}\n` });
          send({ exit: 1 });
        } finally {
          process.chdir(home);
          socket.end();
        }
      });
    });
  });

  // Created 0600 from the start: the umask applies while the socket file is bound, so there is
  // no moment at which another user could connect.
  const umask = process.umask(0o177);
  let bound: Promise<void>;
  try {
    // listen() binds a Unix socket synchronously, so the umask is restored right after.
    bound = new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  try {
    await bound;
  } catch (error) {
    onSkip(`cannot listen on ${socketPath}: ${(error as Error).message}`);
    return null;
  }
  fs.chmodSync(socketPath, 0o600);

  return {
    path: socketPath,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.catch(() => {});
      fs.rmSync(socketPath, { force: true });
    },
  };
}
