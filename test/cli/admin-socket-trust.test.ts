import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// The CLI sends its command (and prints the answer) to whatever listens at ADMIN_SOCKET. A local
// user who squats that path (a shared folder, before the service starts) would receive every
// command and could answer anything, e.g. a master key of their choosing for `encryption
// generate`. The CLI checks the socket before sending: a socket, owned by this user or root, mode
// 0600, in a folder other users cannot write to. Here a listener that records what it receives
// plays the squatter.
const run = promisify(execFile);
const CLI = path.resolve('src/cli/main.ts');
const isRoot = process.getuid?.() === 0;

let dir: string;
let squatter: net.Server | undefined;
let received: string[] = [];

async function listen(socketPath: string, mode: number): Promise<void> {
  received = [];
  squatter = net.createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('data', (line: string) => {
      received.push(line);
      socket.end(`${JSON.stringify({ out: 'k-attacker:AAAA\n' })}\n${JSON.stringify({ exit: 0 })}\n`);
    });
  });
  await new Promise<void>((resolve) => squatter!.listen(socketPath, resolve));
  fs.chmodSync(socketPath, mode);
}

async function cli(socketPath: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dir,
        ADMIN_SOCKET: socketPath,
      },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-sock-trust-'));
});
afterEach(async () => {
  await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
  squatter = undefined;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the CLI checks the admin socket before sending to it', () => {
  it('refuses a socket other users may connect to (mode 666), sending nothing', async () => {
    const socketPath = path.join(dir, 'open.sock');
    await listen(socketPath, 0o666);
    const res = await cli(socketPath, 'encryption', 'generate');
    expect(res.code).toBe(77);
    expect(res.stderr).toMatch(/refusing the admin socket .*mode is 666, not 600/);
    expect(res.stdout).toBe('');
    expect(received).toEqual([]);
  });

  it.runIf(isRoot)('refuses a socket that belongs to another user, sending nothing', async () => {
    const socketPath = path.join(dir, 'other.sock');
    await listen(socketPath, 0o600);
    fs.chownSync(socketPath, 65534, 65534);
    const res = await cli(socketPath, 'encryption', 'generate');
    expect(res.code).toBe(77);
    expect(res.stderr).toMatch(/belongs to uid 65534/);
    expect(received).toEqual([]);
  });

  it('refuses a socket in a folder anyone can write to (not sticky)', async () => {
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const socketPath = path.join(shared, 'admin.sock');
    await listen(socketPath, 0o600);
    const res = await cli(socketPath, 'encryption', 'generate');
    expect(res.code).toBe(77);
    expect(res.stderr).toMatch(/writable by other users \(mode 777\)/);
    expect(received).toEqual([]);
  });

  it('talks to a socket of its own user, mode 600, in a private folder', async () => {
    const socketPath = path.join(dir, 'good.sock');
    await listen(socketPath, 0o600);
    const res = await cli(socketPath, 'encryption', 'generate');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('k-attacker:AAAA\n');
    expect(received).toHaveLength(1);
  });
});
