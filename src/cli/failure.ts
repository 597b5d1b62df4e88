import { CommanderError } from 'commander';
import { DomainError } from '../core/errors.ts';
import { ConfigError } from '../infra/config.ts';
import { KeyRingError } from '../infra/crypto/keyring.ts';
import { DataDirLockedError } from '../infra/db/data-dir-lock.ts';
import { StartupError } from '../infra/startup-errors.ts';

/**
 * The exit codes of a `brandhealth` command: 0 done; 1 refused (the command was understood and cannot
 * be carried out: any DomainError, a configuration or key-ring problem, a constraint of the database)
 * or failed unexpectedly; 2 a malformed command line (commander's parse errors, the option parsers
 * of registry.ts), reported by commander itself.
 */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

/**
 * THE mapping from a command's error to its exit code and its one line on stderr, as
 * infra/http/domain-problems.ts is for HTTP: every DomainError kind is `refused` with its detail.
 * Operational errors of the process (configuration, key ring, data folder lock) read the same way;
 * anything else is a bug and prints its stack.
 */
export function failureOf(error: unknown): { code: number; line: string | null; known: boolean } {
  if (error instanceof CommanderError)
    return { code: error.exitCode === 0 ? EXIT.ok : EXIT.usage, line: null, known: true }; // commander printed it
  if (error instanceof DomainError) return { code: EXIT.refused, line: error.detail, known: true };
  if (
    error instanceof ConfigError ||
    error instanceof KeyRingError ||
    error instanceof DataDirLockedError ||
    error instanceof StartupError
  )
    return { code: EXIT.refused, line: error.message, known: true };
  if ((error as { code?: string })?.code?.startsWith?.('23'))
    return { code: EXIT.refused, line: `rejected by the database: ${(error as Error).message}`, known: true };
  return { code: EXIT.refused, line: String((error as Error)?.stack ?? error), known: false };
}
