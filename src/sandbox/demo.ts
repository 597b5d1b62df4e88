import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { SANDBOX_EXTENSIONS } from './extensions.ts';
import type { SandboxManifest } from './manifest.ts';
import { seedBase } from './seed.ts';

/** Seeds the sandbox (base, then each domain's extension) and writes the manifest. */
export async function runDemo(
  ctx: AppContext,
  options: { out: string; baseUrl?: string; log?: (line: string) => void },
): Promise<SandboxManifest> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const base = await seedBase(ctx, log);
  const baseUrl = (options.baseUrl ?? ctx.config.publicUrl ?? `http://localhost:${ctx.config.port}`).replace(
    /\/$/,
    '',
  );
  const manifest: SandboxManifest = {
    baseUrl,
    docs: `${baseUrl}/docs`,
    openapi: `${baseUrl}/openapi.json`,
    ...base,
    extras: {},
  };
  for (const extension of SANDBOX_EXTENSIONS) {
    const t0 = Date.now();
    await extension.run(ctx, manifest, log);
    log(`${extension.name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  fs.mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
  fs.writeFileSync(options.out, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`sandbox seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return manifest;
}
