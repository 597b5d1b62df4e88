import type { AppContext } from '../context.ts';
import { scoringSandbox } from '../scoring/sandbox.ts';
import { tacsiSandbox } from '../tacsi/sandbox.ts';
import type { SandboxManifest } from './manifest.ts';

/**
 * Domains extend the sandbox after the base seed (workspaces, keys, sectors, metric history).
 * Each extension must be idempotent: `demo` may run again on the same database.
 */
export type SandboxExtension = {
  name: string;
  run: (ctx: AppContext, manifest: SandboxManifest, log: (line: string) => void) => Promise<void>;
};

export const SANDBOX_EXTENSIONS: SandboxExtension[] = [
  scoringSandbox,
  // tacsi publishes from daily_scores: keep it after the extension that writes them.
  tacsiSandbox,
];
