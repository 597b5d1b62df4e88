import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataDir, createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

// Every start-up failure of the real entry (`node src/main.ts`) is one clean line on stderr
// naming the setting and the cause, with a documented exit code (78 configuration, 69 a
// dependency unavailable): no stack trace (review item 17).
const ENTRY = path.resolve('src/main.ts');
const folders: string[] = [];
// A child that outlives a failed or timed-out test is killed here, never left running (it holds its
// data folder, a port and several hundred MB).
const children = new Set<ChildProcess>();
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
  for (const db of databases) await db.drop();
});

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-start-'));
  folders.push(dir);
  return dir;
}

/**
 * The data of a start that gets past opening the database: a data folder holding the migrated image
 * (PGlite), or a migrated database (PostgreSQL), so the child does not spend seconds on initdb and
 * every migration before reaching what the test is about.
 */
async function migratedData(): Promise<Record<string, string>> {
  const dir = await createDataDir('bh-start-');
  folders.push(dir);
  if (!usingPostgres()) return { DATA_DIR: dir };
  const db = await createTestDatabase({ migrated: true });
  databases.push(db);
  return { DATA_DIR: dir, DATABASE_URL: db.databaseUrl! };
}

/** The environment of a started entry point: a free port and a data folder of its own unless `env` says. */
function entryEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: tempDir(),
    ...env,
  };
}

function start(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY], {
      env: entryEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after 60 s: ${stdout}${stderr}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

function expectCleanFailure(result: { code: number | null; stderr: string }, code: number, pattern: RegExp) {
  expect(result.code, result.stderr).toBe(code);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^brand-health: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

// Failures decided before any database is opened are the same on both projects: they run on the
// pglite one only (the postgres project runs this file for the cases that reach the server).
const beforeTheDatabase = it.skipIf(usingPostgres());

describe('start-up failures of node src/main.ts', () => {
  beforeTheDatabase(
    'names a setting refused before the database is opened and exits 78',
    async () => {
      expectCleanFailure(await start({ PORT: 'eighty' }), 78, /PORT must be an integer/);
      expectCleanFailure(
        await start({ DATABASE_URL: 'mysql://x@localhost/db' }),
        78,
        /DATABASE_URL must use postgres/,
      );
    },
    60_000,
  );

  it('names a bad setting found with the database open and exits 78', async () => {
    expectCleanFailure(
      await start({ ...(await migratedData()), HOST: '192.0.2.77' }),
      78,
      /HOST: 192\.0\.2\.77 is not an address of this machine/,
    );
  }, 120_000);

  beforeTheDatabase('names a PostgreSQL server that is down and exits 69', async () => {
    // Port 1 on loopback: nothing listens there.
    expectCleanFailure(
      await start({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/brandhealth' }),
      69,
      /^brand-health: DATABASE_URL: cannot reach the PostgreSQL server at 127\.0\.0\.1:1 \(ECONNREFUSED\)/,
    );
  });

  it.runIf(usingPostgres())('names a database that does not exist and exits 78', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = '/bh_no_such_database';
    expectCleanFailure(
      await start({ DATABASE_URL: url.toString() }),
      78,
      /DATABASE_URL: database "bh_no_such_database" does not exist .*createdb/,
    );
  });

  beforeTheDatabase('names a DATA_DIR held by another process and exits 69', async () => {
    const dir = tempDir();
    // This test process is alive: its pid in the lock file means "in use".
    fs.writeFileSync(path.join(dir, 'brandhealth.lock'), String(process.pid));
    expectCleanFailure(
      await start({ DATA_DIR: dir }),
      69,
      /^brand-health: DATA_DIR: the data folder .* is in use by process \d+/,
    );
  });

  it('names a port in use and exits 69, leaving the data folder usable', { timeout: 120_000 }, async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const data = await migratedData();
    const dir = data.DATA_DIR!;
    try {
      expectCleanFailure(
        await start({ ...data, PORT: String(port) }),
        69,
        new RegExp(`^brand-health: PORT: 127\\.0\\.0\\.1:${port} is already in use`),
      );
    } finally {
      server.close();
    }
    // The failed start released its lock.
    expect(fs.existsSync(path.join(dir, 'brandhealth.lock'))).toBe(false);
  });

  it(
    'shuts down cleanly on a SIGTERM sent at the first 200 on /readyz, and starts again on the same data',
    { timeout: 300_000 },
    async () => {
      // PGlite: an empty folder, so the first run creates and migrates the cluster as a first
      // `npm start` does. PostgreSQL: the project's own migrated database.
      const data = usingPostgres() ? await migratedData() : { DATA_DIR: tempDir() };
      const dir = data.DATA_DIR!;
      for (let run = 0; run < 2; run++) {
        const port = await freePort();
        const child = spawn(process.execPath, [ENTRY], {
          env: entryEnv({ PORT: String(port), METRICS_PORT: '0', SHUTDOWN_DRAIN_MS: '0', ...data }),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        track(child);
        let stderr = '';
        child.stderr.on('data', (c) => (stderr += c));
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
          child.once('exit', (code, signal) => resolve({ code, signal })),
        );
        const deadline = Date.now() + 120_000;
        while (!(await readyz(port))) {
          if (child.exitCode !== null || Date.now() > deadline) {
            child.kill('SIGKILL');
            throw new Error(`not ready: ${stderr}`);
          }
          await new Promise((r) => setTimeout(r, 10));
        }
        // The start-up steps after listening (workers, metrics, admin socket) may still be running.
        child.kill('SIGTERM');
        expect(await exited, stderr).toEqual({ code: 0, signal: null });
      }
      expect(fs.existsSync(path.join(dir, 'brandhealth.lock'))).toBe(false);
    },
  );
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function readyz(port: number): Promise<boolean> {
  try {
    // A generous bound: on a loaded machine an answer can take seconds, and a request abandoned
    // early would never see the first 200.
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}
