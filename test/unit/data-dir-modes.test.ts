import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/db/database.ts';
import { usingPostgres } from '../helpers/database.ts';

// The PGlite data folder is the server's alone: PGlite unpacks its cluster template with 0666
// files, and a local user who can append to postgresql.auto.conf or rewrite a catalog file
// stops the service or changes its settings. After a start, nothing in DATA_DIR is open to
// group or others, for a new folder and for one left loose by an older version.
function looseEntries(dir: string): string[] {
  const found: string[] = [];
  const walk = (target: string) => {
    const stat = fs.lstatSync(target);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0)
      found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, target)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(target)) walk(path.join(target, name));
  };
  walk(dir);
  return found;
}

describe.skipIf(usingPostgres())('PGlite data folder permissions', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('creates a new data folder owner-only', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-modes-'));
    dirs.push(parent);
    const dataDir = path.join(parent, 'data');
    const database = await openDatabase({ databaseUrl: null, dataDir });
    await database.db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
    expect(looseEntries(dataDir)).toEqual([]);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'postgresql.auto.conf')).mode & 0o777).toBe(0o600);
    await database.close();
    expect(looseEntries(dataDir)).toEqual([]);
  }, 60_000);

  it('tightens an existing folder left world-writable at the next start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-modes-'));
    dirs.push(dataDir);
    const first = await openDatabase({ databaseUrl: null, dataDir });
    await first.close();
    // What an older version left: the template's 0666 files in 0755 folders.
    const loosen = (target: string) => {
      const stat = fs.lstatSync(target);
      fs.chmodSync(target, stat.isDirectory() ? 0o777 : 0o666);
      if (stat.isDirectory()) for (const name of fs.readdirSync(target)) loosen(path.join(target, name));
    };
    loosen(dataDir);
    expect(looseEntries(dataDir).length).toBeGreaterThan(100);

    const second = await openDatabase({ databaseUrl: null, dataDir });
    expect(looseEntries(dataDir)).toEqual([]);
    await second.close();
  }, 60_000);
});
