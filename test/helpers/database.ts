import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase } from '../../src/infra/db/database.ts';

/**
 * Where a test's service keeps its data. On the `pglite` project: an in-memory PGlite per test
 * file. On the `postgres` project: a fresh database created from TEST_DATABASE_URL for this one
 * test file, so runs can never collide, dropped afterwards.
 *
 * `migrated: true` starts from the image the global setup built once per run (test/global-setup.ts):
 * the schema, the job engine's tables and its queues already in place. Loading it takes well under a
 * second, where initdb plus every migration took about seven.
 */
export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  /** PGlite data-folder image to load (migrated databases on PGlite only). */
  pgliteImage?: Blob;
  drop(): Promise<void>;
}

export function usingPostgres(): boolean {
  return process.env.TEST_DB === 'postgres' && !!process.env.TEST_DATABASE_URL;
}

/** Values the global setup provides; absent when a file runs outside vitest's projects. */
function provided(key: 'pgliteImagePath' | 'postgresTemplate'): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    return undefined;
  }
}

export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (!usingPostgres()) {
    const imagePath = options.migrated ? provided('pgliteImagePath') : undefined;
    const pgliteImage = imagePath ? new Blob([fs.readFileSync(imagePath)]) : undefined;
    return { databaseUrl: null, dataDir: 'memory://', pgliteImage, drop: async () => {} };
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const template = options.migrated ? provided('postgresTemplate') : undefined;
  const name = `bh_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) =>
    admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`),
  );
  return {
    databaseUrl: databaseUrlFor(adminUrl, name),
    dataDir: 'memory://',
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A fresh folder for tests that hand DATA_DIR to a child process (the CLI, `npm start`). On PGlite it
 * starts as the migrated image, so the first process opens a cluster in about a second instead of
 * creating and migrating one (about five more); with PostgreSQL DATA_DIR only holds files.
 */
export async function createDataDir(prefix: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const imagePath = usingPostgres() ? undefined : provided('pgliteImagePath');
  if (imagePath) {
    const database = await openDatabase({
      databaseUrl: null,
      dataDir: dir,
      pgliteImage: new Blob([fs.readFileSync(imagePath)]),
    });
    await database.close();
  }
  return dir;
}

export function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
