import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Migrator, NO_MIGRATIONS } from 'kysely/migration';
import {
  migrateToLatest,
  migrationsApplied,
  openDatabase,
  type Database,
} from '../../src/infra/db/database.ts';
import { migrations } from '../../src/infra/db/migrations/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let testDb: TestDatabase;
let database: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

async function tables(): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely_%' ORDER BY table_name`.execute(
    database.db,
  );
  return rows.map((r) => r.table_name);
}

describe('migrations', () => {
  it('apply to an empty database, roll back completely, and apply again', async () => {
    expect(await tables()).toEqual([]);
    const applied = await migrateToLatest(database.db);
    expect(applied).toEqual(Object.keys(migrations));
    expect(await migrationsApplied(database.db)).toBe(true);
    const created = await tables();
    for (const table of [
      'workspaces',
      'api_keys',
      'audits',
      'score_log',
      'tacsi_cells',
      'tacsi_privacy_ledger',
    ]) {
      expect(created).toContain(table);
    }

    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo(NO_MIGRATIONS);
    expect(error).toBeUndefined();
    expect(await tables()).toEqual([]);
    expect(await migrationsApplied(database.db)).toBe(false);

    expect(await migrateToLatest(database.db)).toEqual(Object.keys(migrations));
    expect(await tables()).toEqual(created);
    expect(await migrateToLatest(database.db)).toEqual([]);
  });

  it('rejects invalid states in the database itself', async () => {
    const { db } = database;
    await db
      .insertInto('workspaces')
      .values({ id: 'ws_a', name: 'A', plan: 'agency', account_type: 'agency' })
      .execute();
    const bad = [
      db.insertInto('workspaces').values({ id: 'ws_b', name: 'B', plan: 'gold' as never }),
      db.insertInto('workspaces').values({ id: 'ws_c', name: '', plan: 'pro' }),
      db.insertInto('workspaces').values({ id: 'ws_d', name: 'D', plan: 'pro', parent_id: 'ws_missing' }),
      db.insertInto('api_keys').values({ id: 'key_x', secret_hash: Buffer.alloc(32), scopes: ['read'] }),
      db.insertInto('api_keys').values({
        id: 'key_y',
        workspace_id: 'ws_a',
        secret_hash: Buffer.alloc(32),
        scopes: ['admin' as never],
      }),
      db.insertInto('audits').values({
        id: 'aud_1',
        workspace_id: 'ws_a',
        platforms: ['instagram'],
        lookback_days: 400,
        estimated_completion: new Date(),
      }),
    ];
    for (const query of bad) await expect(query.execute()).rejects.toThrow();

    // One processing audit per workspace, whoever races for it.
    const audit = (id: string) => ({
      id,
      workspace_id: 'ws_a',
      platforms: ['instagram' as const],
      lookback_days: 90,
      estimated_completion: new Date(),
    });
    await db.insertInto('audits').values(audit('aud_2')).execute();
    await expect(db.insertInto('audits').values(audit('aud_3')).execute()).rejects.toThrow();
  });
});
