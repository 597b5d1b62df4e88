// Storage per row of the tables that grow with workspaces and days, for docs/scaling.md:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/table-sizes.ts
// Creates bh_sizes_<random> on that server, seeds it with the bench's own generators (every
// platform, a year of daily snapshots; a week of daily scores), measures heap, index and TOAST
// bytes per row after VACUUM, and drops the database.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../src/infra/db/database.ts';
import { seedAuditData } from './seed/audit-data.ts';
import { seedPublicationData } from './seed/publication-data.ts';

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL (a PostgreSQL server) is required');
const WORKSPACES = Number(process.env.SIZES_WORKSPACES ?? 200);
const ENTITIES = Number(process.env.SIZES_ENTITIES ?? 20_000);
const name = `bh_sizes_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const database = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', poolSize: 2 });
try {
  const db = database.db;
  await migrateToLatest(db);
  const now = new Date('2026-01-07T12:00:00Z');
  let started = performance.now();
  const { snapshots } = await seedAuditData(db, { workspaces: WORKSPACES, days: 365, seed: 'sizes', now });
  const snapshotMs = performance.now() - started;
  started = performance.now();
  const { rows: daily } = await seedPublicationData(db, {
    entities: ENTITIES,
    sectors: 20,
    periodEnd: '2026-01-04',
    seed: 'sizes',
    now,
  });
  const dailyMs = performance.now() - started;
  await sql`VACUUM ANALYZE`.execute(db);
  const { rows } = await sql<Record<string, string | number>>`
    SELECT c.relname AS table, c.reltuples::bigint AS rows,
           pg_relation_size(c.oid) AS heap, pg_indexes_size(c.oid) AS indexes,
           pg_total_relation_size(c.oid) - pg_relation_size(c.oid) - pg_indexes_size(c.oid) AS toast,
           pg_total_relation_size(c.oid) AS total
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relname IN ('metric_snapshots', 'daily_scores')`.execute(db);
  const widths = {
    metric_snapshots: (
      await sql<{ w: number }>`SELECT avg(pg_column_size(t.*))::float8 AS w FROM metric_snapshots t`.execute(
        db,
      )
    ).rows[0]!.w,
    daily_scores: (
      await sql<{ w: number }>`SELECT avg(pg_column_size(t.*))::float8 AS w FROM daily_scores t`.execute(db)
    ).rows[0]!.w,
  };
  const { rows: indexes } = await sql<{ index: string; bytes: number }>`
    SELECT indexrelid::regclass::text AS index, pg_relation_size(indexrelid) AS bytes
      FROM pg_index WHERE indrelid IN ('metric_snapshots'::regclass, 'daily_scores'::regclass)`.execute(db);
  for (const r of rows) {
    const n = Number(r.rows);
    console.log(
      `${r.table}: ${n} rows, row ${widths[r.table as keyof typeof widths].toFixed(1)} B (pg_column_size), ` +
        `heap ${(Number(r.heap) / n).toFixed(1)} B/row, indexes ${(Number(r.indexes) / n).toFixed(1)} B/row, ` +
        `toast ${Number(r.toast)} B, total ${(Number(r.total) / n).toFixed(1)} B/row (${(Number(r.total) / 2 ** 20).toFixed(1)} MiB)`,
    );
  }
  for (const i of indexes) console.log(`  index ${i.index}: ${(Number(i.bytes) / 2 ** 20).toFixed(1)} MiB`);
  console.log(
    `bulk insert: ${snapshots} snapshots in ${(snapshotMs / 1000).toFixed(1)} s (${Math.round(snapshots / (snapshotMs / 1000))} rows/s); ` +
      `${daily} daily scores in ${(dailyMs / 1000).toFixed(1)} s (${Math.round(daily / (dailyMs / 1000))} rows/s)`,
  );
} finally {
  await database.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
