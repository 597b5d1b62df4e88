import fs from 'node:fs';
import net from 'node:net';

/**
 * The CLI side of the admin socket (server: src/infra/admin-socket.ts). Deliberately light (node
 * built-ins only): a call through a running service must not pay for loading the database,
 * the job engine or the HTTP stack.
 *
 * Protocol: one JSON line `{argv, cwd}` from the CLI; then JSON lines `{out}` / `{err}` (output,
 * streamed) and a last `{exit}` from the service.
 */

export interface Forwarded {
  exitCode: number;
}

/** Exit code when the socket exists but the service refuses it (EX_NOPERM). */
export const EXIT_NOPERM = 77;

/**
 * Sends one invocation to the running service and relays its output. Resolves null when no
 * service listens on `socketPath` (no file, or a stale one): the caller then runs the command
 * itself.
 */
export function forwardToService(socketPath: string, argv: readonly string[]): Promise<Forwarded | null> {
  if (!fs.existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let connected = false;
    let buffer = '';
    let exitCode: number | null = null;
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ argv, cwd: process.cwd() })}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const message = JSON.parse(line) as { out?: string; err?: string; exit?: number };
        if (message.out !== undefined) process.stdout.write(message.out);
        if (message.err !== undefined) process.stderr.write(message.err);
        if (message.exit !== undefined) exitCode = message.exit;
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Nobody listening (a socket file left by a service that died): run the command here.
      if (!connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) resolve(null);
      else if (!connected && error.code === 'EACCES') {
        process.stderr.write(
          `brandhealth: the admin socket ${socketPath} is not accessible to this user (EACCES): run the CLI as the user that runs the service\n`,
        );
        resolve({ exitCode: EXIT_NOPERM });
      } else reject(error);
    });
    socket.on('close', () => {
      if (!connected) return;
      if (exitCode === null) {
        process.stderr.write(
          'brandhealth: the service closed the admin socket before the command finished\n',
        );
        resolve({ exitCode: 1 });
      } else resolve({ exitCode });
    });
  });
}
