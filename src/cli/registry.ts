import type { Command } from 'commander';
import type { AppContext } from '../context.ts';

/** Opens the configured database (migrated) for a command; closes it when the command ends. */
export type WithContext = <T>(fn: (ctx: AppContext) => Promise<T>) => Promise<T>;

/** A domain adds its own subcommands through one of these (its DomainModule's `cli`). */
export type CliExtension = (program: Command, withContext: WithContext, output: CliOutput) => void;

export interface CliOutput {
  /** Prints a result: JSON with --json, otherwise a readable form. */
  result(value: unknown, human?: () => string): void;
}

export type { CliIo } from '../infra/admin-socket.ts';
