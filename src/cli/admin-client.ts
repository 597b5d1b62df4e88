import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

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
  const distrust = untrustedSocket(socketPath);
  if (distrust) {
    process.stderr.write(
      `brandhealth: refusing the admin socket ${socketPath}: ${distrust}; the service creates it owner-only in a private folder (remove this file, or point ADMIN_SOCKET elsewhere)\n`,
    );
    return Promise.resolve({ exitCode: EXIT_NOPERM });
  }
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

/**
 * Why the listener at `socketPath` may not be the service, or null when it may be. The command and
 * its output (keys, master keys) go to whoever listens there, so the CLI checks what the service
 * guarantees of its socket: a socket (not a link or a file), owned by this user or root, with no
 * group or other permission, in a folder others cannot write to (or a sticky one, such as /tmp,
 * where they cannot replace another user's file).
 */
export function untrustedSocket(socketPath: string): string | null {
  const stat = fs.lstatSync(socketPath);
  if (!stat.isSocket()) return 'it is not a socket';
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0)
    return `it belongs to uid ${stat.uid}, not to this user (uid ${uid}) or root`;
  if ((stat.mode & 0o077) !== 0) return `its mode is ${(stat.mode & 0o777).toString(8)}, not 600`;
  const dir = path.dirname(path.resolve(socketPath));
  const folder = fs.statSync(dir);
  if ((folder.mode & 0o022) !== 0 && (folder.mode & 0o1000) === 0)
    return `its folder ${dir} is writable by other users (mode ${(folder.mode & 0o777).toString(8)})`;
  return null;
}
