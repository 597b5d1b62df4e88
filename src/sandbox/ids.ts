import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Sandbox ids are derived from names, so seeding twice finds the same rows; the `01SANDBX` time
 * part marks them as sandbox data (`demo` refuses a database holding anything else). Ids are not
 * secrets; keys are never derived (src/sandbox/keys.ts issues random ones).
 */

/** What every sandbox id's ULID starts with. */
export const SANDBOX_ULID_PREFIX = '01SANDBX';
export function sandboxUlid(name: string): string {
  const bytes = createHash('sha256').update(`sandbox:${name}`).digest();
  let out = SANDBOX_ULID_PREFIX;
  for (let i = 0; out.length < 26; i++) out += CROCKFORD[bytes[i]! % 32];
  return out;
}

/** Whether an id (`ws_...`, `sub_...`) is a sandbox row's: the one test of what sandbox data is. */
export function isSandboxId(id: string): boolean {
  return id.slice(id.indexOf('_') + 1).startsWith(SANDBOX_ULID_PREFIX);
}

export function sandboxId(prefix: string, name: string): string {
  return `${prefix}_${sandboxUlid(name)}`;
}
