import type { AppContext } from '../context.ts';
import type { SandboxManifest } from './manifest.ts';

/**
 * Domains extend the sandbox after the base seed (workspaces, keys, sectors, metric history).
 * Each extension must be idempotent: `demo` may run again on the same database.
 */
export type SandboxExtension = {
  name: string;
  run: (ctx: AppContext, manifest: SandboxManifest, log: (line: string) => void) => Promise<void>;
};

export const SANDBOX_EXTENSIONS: SandboxExtension[] = [];
