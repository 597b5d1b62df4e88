import fs from 'node:fs';
import type { AppContext } from '../context.ts';
import { SANDBOX_EXTENSIONS } from './extensions.ts';
import { writeManifest, type SandboxManifest } from './manifest.ts';
import { assertSandboxOnly } from './guard.ts';
import { seedBase } from './seed.ts';
import { stopwatch } from '../infra/wall-clock.ts';

function readPreviousKeys(out: string, log: (line: string) => void): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(out, 'utf8');
  } catch {
    return undefined; // no manifest yet: every key is issued
  }
  try {
    const keys = (JSON.parse(text) as { keys?: unknown }).keys;
    return keys && typeof keys === 'object' ? (keys as Record<string, unknown>) : undefined;
  } catch {
    log(`${out} is not a manifest; issuing new sandbox keys`);
    return undefined;
  }
}

/**
 * Seeds the sandbox (base, then each domain's extension) and writes the manifest. Refuses a
 * database holding anything but sandbox data unless `force`. The keys of a manifest already at
 * `out` are kept when they still match (src/sandbox/keys.ts), so running it twice changes nothing.
 */
export async function runDemo(
  ctx: AppContext,
  options: { out: string; baseUrl?: string; force?: boolean; log?: (line: string) => void },
): Promise<SandboxManifest> {
  const log = options.log ?? (() => {});
  const watch = stopwatch();
  if (!options.force) await assertSandboxOnly(ctx.db);
  const base = await seedBase(ctx, log, readPreviousKeys(options.out, log));
  // The state `brandhealth sandbox reset` returns to: what existed when the sandbox was first seeded.
  await ctx.db
    .insertInto('sandbox_state')
    .values({ seeded_at: ctx.now() })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const baseUrl = (options.baseUrl ?? ctx.config.publicUrl ?? `http://localhost:${ctx.config.port}`).replace(
    /\/$/,
    '',
  );
  const manifest: SandboxManifest = {
    baseUrl,
    docs: `${baseUrl}/reference`,
    openapi: `${baseUrl}/openapi.json`,
    ...base,
    extras: {},
  };
  for (const extension of SANDBOX_EXTENSIONS) {
    const step = stopwatch();
    await extension.run(ctx, manifest, log);
    log(`${extension.name}: ${step.elapsed()}`);
  }
  writeManifest(options.out, manifest);
  log(`sandbox seeded in ${watch.elapsed()}`);
  return manifest;
}
