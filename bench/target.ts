import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Backend } from './options.ts';

/** A database that belongs to the bench alone, created empty and thrown away afterwards. */
export interface BenchDatabase {
  backend: Backend;
  /** postgres://.../bh_bench_<random>, or null on PGlite. */
  databaseUrl: string | null;
  /** PGlite folder (a fresh temporary one); unused on PostgreSQL. */
  dataDir: string;
  /** Human-readable place, for the report. */
  label: string;
  drop(): Promise<void>;
}

const BENCH_DB = /^bh_bench_[0-9a-f]{12}$/;

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * On PostgreSQL: a new database `bh_bench_<random>` on the server of `adminUrl`. The database named
 * in `adminUrl` is only used to issue CREATE/DROP DATABASE; nothing is ever read from or written to it.
 * On PGlite: a fresh temporary data folder.
 */
export async function createBenchDatabase(backend: Backend, adminUrl: string | null): Promise<BenchDatabase> {
  if (backend === 'pglite') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-bench-'));
    return {
      backend,
      databaseUrl: null,
      dataDir,
      label: `PGlite in ${dataDir}`,
      async drop() {
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!adminUrl) throw new Error('PostgreSQL bench needs DATABASE_URL');
  const name = `bh_bench_${randomBytes(6).toString('hex')}`;
  await onServer(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  let dropped = false;
  return {
    backend,
    databaseUrl: withDatabase(adminUrl, name),
    dataDir: path.join(os.tmpdir(), 'bh-bench-unused'),
    label: `PostgreSQL database ${name} (created for this run, dropped after)`,
    async drop() {
      if (dropped) return;
      dropped = true;
      // The name check makes it impossible for this statement to drop anything but a bench database.
      if (!BENCH_DB.test(name)) throw new Error(`refusing to drop ${name}`);
      await onServer(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
