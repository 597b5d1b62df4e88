import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Where a test's service keeps its data. On the `pglite` project: an in-memory PGlite (one at a
 * time: test files run sequentially). On the `postgres` project: a fresh database created from
 * TEST_DATABASE_URL for this one test file, so runs can never collide, dropped afterwards.
 */
export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

export function usingPostgres(): boolean {
  return process.env.TEST_DB === 'postgres' && !!process.env.TEST_DATABASE_URL;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!usingPostgres()) return { databaseUrl: null, dataDir: 'memory://', drop: async () => {} };
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `bh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
