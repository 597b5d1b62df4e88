// Seeds the demo sandbox once per run and project, in a child process running the real CLI
// (`brandhealth demo`), so the end-to-end files share one seeding per database instead of each
// seeding its own: seeding is most of the suite's time. It returns at once; the pglite and postgres
// seedings run side by side (vitest runs the projects' global setups one after the other), and each
// file waits for its project's seeding to finish (test/e2e/seeded-sandbox.ts) and then works on a
// copy of its own: a copied data folder on PGlite, a database made from the seeded one as a template
// on PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { databaseUrlFor, withAdmin } from '../helpers/database.ts';

export interface SandboxSeed {
  /** Folder of the seeding: manifest (sandbox.json), data (PGlite), seed.log, status.json. */
  dir: string;
  /** The seeded database on PostgreSQL (a template for each file's copy); null on PGlite. */
  database: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxSeed: SandboxSeed;
  }
}

export default async function setup(project: TestProject) {
  const postgres = project.config.env?.TEST_DB === 'postgres' && !!process.env.TEST_DATABASE_URL;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bh-e2e-seed-${postgres ? 'postgres' : 'pglite'}-`));
  const adminUrl = process.env.TEST_DATABASE_URL;
  const database = postgres ? `bh_e2e_sandbox_${randomBytes(6).toString('hex')}` : null;
  if (database) await withAdmin(adminUrl!, (admin) => admin.query(`CREATE DATABASE ${database}`));

  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', DATA_DIR: path.join(dir, 'data') };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  if (database) env.DATABASE_URL = databaseUrlFor(adminUrl!, database);
  const log = fs.openSync(path.join(dir, 'seed.log'), 'w');
  const cli = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'demo', '--out', path.join(dir, 'sandbox.json')],
    { env, stdio: ['ignore', log, log] },
  );
  child.on('exit', (code, signal) => {
    fs.closeSync(log);
    fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ code, signal }));
  });
  project.provide('sandboxSeed', { dir, database });

  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    if (database) {
      await withAdmin(adminUrl!, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
