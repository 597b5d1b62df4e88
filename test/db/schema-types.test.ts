// The hand-written Kysely schema (src/infra/db/types.ts, interface DB) against the schema the migrations
// build: a fresh database is migrated, information_schema is read, and every table and column is
// compared with what the TypeScript compiler resolves from DB: the same tables, the same columns, the
// same nullability, a TypeScript type that fits the column's PostgreSQL type as database.ts parses it,
// and no insert type that lets a NOT NULL column without a default be left out.
import path from 'node:path';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '../../src/infra/db/database.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const TYPES_FILE = path.resolve(import.meta.dirname, '../../src/infra/db/types.ts');
/** Kysely's own bookkeeping, not part of DB. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'bytes' | 'array' | 'json';

/** A column as the database has it. */
interface DbColumn {
  kind: Kind;
  pgType: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** A column as types.ts declares it (its select and insert types, resolved). */
interface TsColumn {
  selectKinds: Set<Kind | 'unknown' | 'object'>;
  selectNull: boolean;
  optional: boolean;
  insertUndefined: boolean;
  text: string;
}

/** PostgreSQL type to the value node-postgres/PGlite hand back (numeric and bigint: database.ts parsers). */
function kindOf(dataType: string): Kind {
  switch (dataType) {
    case 'text':
    case 'character varying':
    case 'character':
    case 'uuid':
    case 'date': // parsed as YYYY-MM-DD strings
      return 'string';
    case 'integer':
    case 'smallint':
    case 'bigint':
    case 'real':
    case 'double precision':
    case 'numeric':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'timestamp with time zone':
    case 'timestamp without time zone':
      return 'Date';
    case 'bytea':
      return 'bytes';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'ARRAY':
      return 'array';
    default:
      throw new Error(`no TypeScript mapping for PostgreSQL type ${dataType}`);
  }
}

async function schemaOf(database: Database): Promise<Map<string, Map<string, DbColumn>>> {
  const { rows } = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
    is_identity: 'YES' | 'NO';
  }>`
    SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable, c.column_default,
           c.is_identity
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(database.db);
  const tables = new Map<string, Map<string, DbColumn>>();
  for (const r of rows) {
    if (MIGRATOR_TABLES.has(r.table_name)) continue;
    const columns = tables.get(r.table_name) ?? new Map<string, DbColumn>();
    tables.set(r.table_name, columns);
    columns.set(r.column_name, {
      kind: kindOf(r.data_type),
      pgType: r.data_type === 'ARRAY' ? r.udt_name : r.data_type,
      nullable: r.is_nullable === 'YES',
      hasDefault: r.column_default !== null || r.is_identity === 'YES',
    });
  }
  return tables;
}

/** DB's tables and columns, resolved by the type checker (mapped and extended interfaces included). */
function declaredSchema(): Map<string, Map<string, TsColumn>> {
  // The project's own compiler options, so Buffer, Date and Kysely resolve as in `npm run typecheck`.
  const configPath = path.resolve(import.meta.dirname, '../../tsconfig.json');
  const config = ts.parseJsonConfigFileContent(
    ts.readConfigFile(configPath, (file) => ts.sys.readFile(file)).config,
    ts.sys,
    path.dirname(configPath),
  );
  const program = ts.createProgram([TYPES_FILE], config.options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(TYPES_FILE)!;
  const dbDeclaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DB',
  );
  if (!dbDeclaration) throw new Error('interface DB not found in types.ts');
  const dbType = checker.getTypeAtLocation(dbDeclaration.name);

  const members = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);
  /** Kysely's ColumnType<S, I, U> is an object with phantom __select__/__insert__ properties. */
  const phantom = (type: ts.Type, name: '__select__' | '__insert__'): ts.Type | undefined => {
    for (const t of members(type)) {
      const p = t.getProperty(name);
      if (p) return checker.getTypeOfSymbol(p);
    }
    return undefined;
  };
  const kindOfTs = (t: ts.Type): Kind | 'unknown' | 'object' => {
    if (t.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return 'unknown';
    if (t.flags & ts.TypeFlags.StringLike) return 'string';
    if (t.flags & ts.TypeFlags.NumberLike) return 'number';
    if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    if (checker.isArrayType(t)) return 'array';
    const name = t.getSymbol()?.name;
    if (name === 'Date') return 'Date';
    if (name === 'Buffer' || name === 'Uint8Array') return 'bytes';
    return 'object';
  };
  const NULLISH = ts.TypeFlags.Null | ts.TypeFlags.Undefined;

  const tables = new Map<string, Map<string, TsColumn>>();
  for (const tableSymbol of checker.getPropertiesOfType(dbType)) {
    const tableType = checker.getTypeOfSymbol(tableSymbol);
    const columns = new Map<string, TsColumn>();
    for (const column of checker.getPropertiesOfType(tableType)) {
      const declared = checker.getTypeOfSymbol(column);
      const optional = (column.flags & ts.SymbolFlags.Optional) !== 0;
      // `T | null` where T is a ColumnType: the ColumnType part carries select and insert.
      const select = phantom(declared, '__select__') ?? declared;
      const insert = phantom(declared, '__insert__') ?? declared;
      const selectMembers = members(select);
      columns.set(column.name, {
        selectKinds: new Set(selectMembers.filter((t) => !(t.flags & NULLISH)).map(kindOfTs)),
        selectNull:
          selectMembers.some((t) => t.flags & ts.TypeFlags.Null) ||
          members(declared).some((t) => t.flags & ts.TypeFlags.Null),
        optional,
        insertUndefined: optional || members(insert).some((t) => t.flags & ts.TypeFlags.Undefined),
        text: checker.typeToString(declared),
      });
    }
    tables.set(tableSymbol.name, columns);
  }
  return tables;
}

/** Every disagreement between the two, one line each. */
function mismatches(
  database: Map<string, Map<string, DbColumn>>,
  declared: Map<string, Map<string, TsColumn>>,
): string[] {
  const out: string[] = [];
  for (const table of database.keys())
    if (!declared.has(table)) out.push(`${table}: a table in the database, missing from DB`);
  for (const table of declared.keys())
    if (!database.has(table)) out.push(`${table}: in DB, no such table in the database`);
  for (const [table, dbColumns] of database) {
    const tsColumns = declared.get(table);
    if (!tsColumns) continue;
    for (const name of dbColumns.keys())
      if (!tsColumns.has(name)) out.push(`${table}.${name}: a column in the database, missing from DB`);
    for (const name of tsColumns.keys())
      if (!dbColumns.has(name)) out.push(`${table}.${name}: in DB, no such column in the database`);
    for (const [name, col] of dbColumns) {
      const t = tsColumns.get(name);
      if (!t) continue;
      const where = `${table}.${name} (${col.pgType}${col.nullable ? '' : ' not null'}; ${t.text})`;
      const kinds = [...t.selectKinds];
      const fits =
        col.kind === 'json'
          ? kinds.every((k) => k === 'unknown' || k === 'object' || k === 'array')
          : kinds.length > 0 && kinds.every((k) => k === col.kind);
      if (!fits) out.push(`${where}: reads as ${kinds.join(' | ')}, the database gives ${col.kind}`);
      const jsonUnknown = col.kind === 'json' && kinds.includes('unknown');
      if (col.nullable && !t.selectNull && !jsonUnknown) out.push(`${where}: nullable, typed without null`);
      if (!col.nullable && t.selectNull) out.push(`${where}: NOT NULL, typed with null`);
      if (t.optional) out.push(`${where}: optional, but every row has the column`);
      if (!col.nullable && !col.hasDefault && t.insertUndefined)
        out.push(`${where}: NOT NULL without a default, yet an insert may leave it out`);
    }
  }
  return out;
}

describe('src/infra/db/types.ts against the migrated schema', () => {
  let testDb: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  it('declares every table and column the migrations create, with their nullability and types', async () => {
    const database_ = await schemaOf(database);
    expect(database_.size).toBeGreaterThan(20);
    expect(mismatches(database_, declaredSchema())).toEqual([]);
  });

  it('reports a column the types lack, one they invent and a wrong nullability', () => {
    const dbSide = new Map([
      [
        't',
        new Map<string, DbColumn>([
          ['a', { kind: 'string', pgType: 'text', nullable: true, hasDefault: false }],
          ['b', { kind: 'number', pgType: 'integer', nullable: false, hasDefault: false }],
        ]),
      ],
    ]);
    const tsSide = new Map([
      [
        't',
        new Map<string, TsColumn>([
          [
            'a',
            {
              selectKinds: new Set(['string']),
              selectNull: false,
              optional: false,
              insertUndefined: false,
              text: 'string',
            },
          ],
          [
            'c',
            {
              selectKinds: new Set(['string']),
              selectNull: false,
              optional: false,
              insertUndefined: false,
              text: 'string',
            },
          ],
        ]),
      ],
    ]);
    expect(mismatches(dbSide, tsSide)).toEqual([
      't.b: a column in the database, missing from DB',
      't.c: in DB, no such column in the database',
      't.a (text; string): nullable, typed without null',
    ]);
  });
});
