import type { SandboxExtension } from '../domain-module.ts';
import { DOMAINS } from '../domains.ts';

/**
 * The domains' sandbox extensions in DOMAINS order: tacsi publishes from the daily_scores that
 * scoring's extension writes, so scoring comes before tacsi there.
 */
export const SANDBOX_EXTENSIONS: SandboxExtension[] = DOMAINS.flatMap((d) => (d.sandbox ? [d.sandbox] : []));
