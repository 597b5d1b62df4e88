import type { SandboxExtension } from '../domain-module.ts';
import { DOMAINS } from '../domains.ts';

/**
 * The domains' sandbox extensions in DOMAINS order, except that one runs after the extensions it
 * names in `after`: tacsi publishes from the daily_scores that scoring's extension writes (scoring
 * comes first in DOMAINS), and audits read the TACSI archive for their benchmark (after tacsi).
 */
export const SANDBOX_EXTENSIONS: SandboxExtension[] = ordered(
  DOMAINS.flatMap((d) => (d.sandbox ? [d.sandbox] : [])),
);

function ordered(extensions: SandboxExtension[]): SandboxExtension[] {
  const done: SandboxExtension[] = [];
  const waiting = [...extensions];
  while (waiting.length) {
    const next = waiting.findIndex((e) => (e.after ?? []).every((name) => done.some((d) => d.name === name)));
    if (next < 0)
      throw new Error(`sandbox extensions wait on each other: ${waiting.map((e) => e.name).join(', ')}`);
    done.push(...waiting.splice(next, 1));
  }
  return done;
}
