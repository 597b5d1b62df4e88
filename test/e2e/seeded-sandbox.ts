import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { SandboxManifest } from '../../src/sandbox/manifest.ts';
import { databaseUrlFor, usingPostgres, withAdmin, type TestDatabase } from '../helpers/database.ts';

/** The seeding of this run and project, when it has finished (test/e2e/global-setup.ts). */
export interface SeededSandbox {
  /** A copy of the seeded database of this file's own, for startTestService({ database }). */
  database: TestDatabase;
  manifest: SandboxManifest;
  /** The manifest as the CLI wrote it (read it, never change it: other files share it). */
  manifestPath: string;
  /** A copy of the manifest of this file's own, for seeding again. */
  out: string;
}

const SEEDING_LIMIT_MS = 15 * 60_000;

export async function seededSandbox(): Promise<SeededSandbox> {
  const seed = inject('sandboxSeed');
  const statusFile = path.join(seed.dir, 'status.json');
  const deadline = Date.now() + SEEDING_LIMIT_MS;
  while (!fs.existsSync(statusFile)) {
    if (Date.now() > deadline)
      throw new Error(`the sandbox seeding did not finish; see ${seed.dir}/seed.log`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const status = JSON.parse(fs.readFileSync(statusFile, 'utf8')) as { code: number | null };
  if (status.code !== 0) {
    const log = fs.readFileSync(path.join(seed.dir, 'seed.log'), 'utf8');
    throw new Error(`brandhealth demo failed (${JSON.stringify(status)}):\n${log.slice(-4000)}`);
  }
  const manifestPath = path.join(seed.dir, 'sandbox.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as SandboxManifest;
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-e2e-'));
  const out = path.join(own, 'sandbox.json');
  fs.copyFileSync(manifestPath, out);
  fs.chmodSync(out, 0o600);
  return { database: await copyOf(seed.database, seed.dir, own), manifest, manifestPath, out };
}

async function copyOf(template: string | null, seedDir: string, own: string): Promise<TestDatabase> {
  if (!usingPostgres() || !template) {
    const dataDir = path.join(own, 'data');
    fs.cpSync(path.join(seedDir, 'data'), dataDir, { recursive: true });
    return {
      databaseUrl: null,
      dataDir,
      drop: async () => fs.rmSync(own, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `bh_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  return {
    databaseUrl: databaseUrlFor(adminUrl, name),
    dataDir: path.join(own, 'data'),
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      fs.rmSync(own, { recursive: true, force: true });
    },
  };
}
