import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The SDK as published: built by its own tsconfig and postbuild, then used the way a consumer
// would (its emitted JavaScript imported by Node, its declarations type-checked without
// skipLibCheck). The database plays no part, so this runs on the PGlite project only.
const sdk = JSON.parse(fs.readFileSync('sdk/package.json', 'utf8'));
const root = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const run = promisify(execFile);

describe.runIf(process.env.TEST_DB !== 'postgres')('the @brand-health/sdk package', () => {
  it('pins the same dependency versions the repository tests it with', () => {
    for (const [name, version] of Object.entries(sdk.dependencies as Record<string, string>)) {
      expect(root.dependencies[name] ?? root.devDependencies[name], name).toBe(version);
    }
    expect(sdk).toMatchObject({
      name: '@brand-health/sdk',
      version: '0.1.0',
      type: 'module',
      files: ['dist', 'README.md'],
    });
    expect(fs.existsSync('sdk/README.md')).toBe(true);
  });

  it('builds to dist, imports in Node and type-checks for a consumer', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bh-sdk-'));
    try {
      const dist = path.join(out, 'node_modules/@brand-health/sdk');
      fs.mkdirSync(dist, { recursive: true });
      fs.cpSync('sdk', dist, { recursive: true, filter: (p) => !p.includes(`${path.sep}dist`) });
      // Its dependency resolves from this repository's node_modules, as after `npm install`.
      fs.symlinkSync(
        path.resolve('node_modules/openapi-fetch'),
        path.join(out, 'node_modules/openapi-fetch'),
      );
      const tsc = path.resolve('node_modules/typescript/bin/tsc');
      await run(process.execPath, [tsc, '-p', path.join(dist, 'tsconfig.json')]);
      await run(process.execPath, [path.join(dist, 'scripts/postbuild.mjs')]);
      for (const target of Object.values(sdk.exports['.'] as Record<string, string>)) {
        expect(fs.existsSync(path.join(dist, target)), target).toBe(true);
      }

      fs.writeFileSync(
        path.join(out, 'consumer.mts'),
        [
          "import { createBrandHealthClient, ProblemError, unwrap, verifyWebhook } from '@brand-health/sdk';",
          "const bh = createBrandHealthClient({ apiKey: 'bh_test_x', baseUrl: 'http://localhost:8080' });",
          "export const run = async () => unwrap(await bh.GET('/v1/workspace')).plan satisfies string;",
          'export { ProblemError, verifyWebhook };',
          '',
        ].join('\n'),
      );
      await run(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--target',
          'es2022',
          '--lib',
          'es2022,dom,dom.iterable',
          'consumer.mts',
        ],
        { cwd: out },
      );

      const imported = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('@brand-health/sdk'); console.log(Object.keys(m).sort().join(','))",
        ],
        { cwd: out },
      );
      expect(imported.stdout.trim().split(',')).toEqual(
        expect.arrayContaining(['ProblemError', 'createBrandHealthClient', 'unwrap', 'verifyWebhook']),
      );
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
