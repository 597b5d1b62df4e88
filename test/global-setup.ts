// Builds, once per run and project, a migrated database that every test service starts from:
// a PGlite data-folder image on the `pglite` project, a template database on the `postgres` one.
// It is built by the real createService (migrations, job-engine schema, queues), so it can never
// drift from what a fresh service would create.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../src/infra/config.ts';
import { createService } from '../src/service.ts';
import { databaseUrlFor, withAdmin } from './helpers/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteImagePath: string;
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const postgres = project.config.env?.TEST_DB === 'postgres' && !!process.env.TEST_DATABASE_URL;
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), runWorkers: false };
  if (!postgres) {
    const service = await createService({ ...config, databaseUrl: null }, { dataDir: 'memory://' });
    const pglite = service.ctx.database.pglite!;
    // The service uses the cluster's `postgres` database only: without initdb's two template
    // databases the image is 16 MB instead of 43 MB (most of the rest is the one WAL segment), and
    // every test service untars it into memory.
    await pglite.exec(
      `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
    );
    await pglite.exec('DROP DATABASE template0');
    await pglite.exec('DROP DATABASE template1');
    await pglite.exec('CHECKPOINT');
    const image = await pglite.dumpDataDir('none');
    await service.stop();
    const file = path.join(os.tmpdir(), `bh-test-image-${process.pid}-${randomBytes(4).toString('hex')}.tar`);
    fs.writeFileSync(file, Buffer.from(await image.arrayBuffer()));
    project.provide('pgliteImagePath', file);
    return () => fs.rmSync(file, { force: true });
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `bh_template_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const service = await createService({ ...config, databaseUrl: databaseUrlFor(adminUrl, name) });
  await service.stop();
  project.provide('postgresTemplate', name);
  return () => withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
