import fs from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import type { DB } from './types.ts';
import { migrations } from './migrations/index.ts';
import { SerialPGliteDialect } from './serial-pglite-dialect.ts';
import { lockDataDir, makeOwnerOnly } from './data-dir-lock.ts';

const NUMERIC = 1700;
const INT8 = 20;
const DATE = 1082;

/** numeric and bigint arrive as JS numbers (our values stay far below 2^53); dates as YYYY-MM-DD. */
const parsers: Record<number, (value: string) => unknown> = {
  [NUMERIC]: (v) => Number.parseFloat(v),
  [INT8]: (v) => Number(v),
  [DATE]: (v) => v,
};

/**
 * PGlite's PostgreSQL keeps PostgreSQL's default 128 MB of shared buffers inside the WASM heap, which
 * never shrinks: on the demo sandbox the service held 520-530 MB at rest. 16 MB (the embedded default
 * serves one process's small tenancy; pages also stay in the OS cache) measured -180 MB at open
 * (docs/performance.md, "Memory").
 */
const PGLITE_MEMORY = ['-c', 'shared_buffers=16MB'];

export interface Database {
  db: Kysely<DB>;
  kind: 'pglite' | 'postgres';
  /** Present on PGlite: pg-boss talks to the same single connection through it. */
  pglite: PGlite | null;
  /** Present on PostgreSQL: the connection string, for pg-boss's own pool. */
  connectionString: string | null;
  /**
   * Proves the database answers, for /readyz. On PostgreSQL through a connection of its own: behind
   * the request and job pool a readiness check would wait for a free connection, and during a busy
   * job round every instance failed its checks at once, leaving the balancer no server.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://... or null for PGlite. */
  databaseUrl: string | null;
  /** PGlite folder; 'memory://' keeps it in memory (tests). */
  dataDir: string;
  /** PostgreSQL pool size (default 20): enough for HTTP requests and concurrent audit jobs. */
  poolSize?: number;
  /**
   * PGlite only: start from this data-folder image (`PGlite.dumpDataDir`) instead of an empty
   * cluster. Tests load one migrated image per run instead of running initdb and every migration
   * per file.
   */
  pgliteImage?: Blob;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 20);
  return openPGlite(options.dataDir, options.pgliteImage);
}

async function openPGlite(dataDir: string, image?: Blob): Promise<Database> {
  const inMemory = dataDir === 'memory://';
  let unlock = () => {};
  if (!inMemory) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Owner-only, as PostgreSQL insists for its own data directory: PGlite unpacks its cluster
    // template with 0666 files, and anyone who can write postgresql.auto.conf or a catalog file
    // controls the server. Existing folders are tightened at every start.
    makeOwnerOnly(dataDir);
    unlock = lockDataDir(dataDir);
  }
  let pglite: PGlite;
  try {
    // Loaded here: a service on PostgreSQL never needs PGlite's 0.5 MB of JavaScript.
    const { PGlite } = await import('@electric-sql/pglite');
    pglite = await PGlite.create(inMemory ? undefined : dataDir, {
      parsers,
      startParams: [...PGlite.defaultStartParams, ...PGLITE_MEMORY],
      ...(image ? { loadDataDir: image } : {}),
    });
  } catch (error) {
    unlock();
    throw error;
  }
  if (!inMemory) makeOwnerOnly(dataDir); // what PGlite just created (a new cluster, a loaded image)
  const db = new Kysely<DB>({ dialect: new SerialPGliteDialect({ pglite }) });
  let closed = false;
  return {
    db,
    kind: 'pglite',
    pglite,
    connectionString: null,
    // One connection serves everything: a check queues behind the statement running, as any query.
    ping: () => ping(db),
    async close() {
      if (closed) return;
      closed = true;
      // A checkpoint before close leaves the data folder consistent even if the process is
      // killed right after; PGlite can corrupt a folder that was not shut down cleanly.
      await pglite.query('CHECKPOINT').catch(() => {});
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      unlock();
    },
  };
}

async function openPostgres(connectionString: string, max: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Fail fast while the server is away, so requests get a 503 instead of hanging.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Nor may a checked-out one: pg emits 'error' on a client whose server goes away mid-query,
  // and the pool listens only while the client is idle (an unhandled 'error' event would kill
  // the process on every PostgreSQL restart). The query itself still fails and the pool drops
  // the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  // One more connection, for readiness checks only (opened on the first check, re-opened after an error).
  const probe = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 3000, query_timeout: 3000 });
  probe.on('error', () => {});
  probe.on('connect', (client) => client.on('error', () => {}));
  let closed = false;
  return {
    db,
    kind: 'postgres',
    pglite: null,
    connectionString,
    async ping() {
      await probe.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([db.destroy(), probe.end()]);
    },
  };
}

/**
 * Applies every pending migration. A database already at the latest migration (every restart) is
 * recognised with one query and left alone; otherwise Kysely's migrator runs under its lock and
 * refuses a database that executed migrations this version does not know.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const executed = await executedMigrations(db);
  const known = Object.keys(migrations);
  if (executed?.length === known.length && executed.every((name, i) => name === known[i])) return [];
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when every known migration has been applied (one query). */
export async function migrationsApplied(db: Kysely<DB>): Promise<boolean> {
  const executed = new Set(await executedMigrations(db));
  return Object.keys(migrations).every((name) => executed.has(name));
}

const UNDEFINED_TABLE = '42P01';

/** The names of the executed migrations in order, or null before the first migration ran. */
async function executedMigrations(db: Kysely<DB>): Promise<string[] | null> {
  try {
    // Byte order, as the names are compared with the known ones (Kysely runs them in that order).
    const names = sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name COLLATE "C"`;
    return (await names.execute(db)).rows.map((r) => r.name);
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return null;
    throw error;
  }
}

export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
