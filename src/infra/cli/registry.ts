import { InvalidArgumentError, type Command } from 'commander';
import type { AppContext } from '../../context.ts';
import { isCalendarDay, parseIsoInstant } from '../../core/days.ts';

/** Opens the configured database (migrated) for a command; closes it when the command ends. */
export type WithContext = <T>(fn: (ctx: AppContext) => Promise<T>) => Promise<T>;

/** A domain adds its own subcommands through one of these (its DomainModule's `cli`). */
export type CliExtension = (program: Command, withContext: WithContext, output: CliOutput) => void;

export interface CliOutput {
  /** Prints a result: JSON with --json, otherwise a readable form. */
  result(value: unknown, human?: () => string): void;
}

export type { CliIo } from '../admin-socket.ts';

/**
 * The option parser of every YYYY-MM-DD option (core/days.ts's rule: a real calendar date, so
 * 2030-02-30 is refused). A refusal is a usage error: one line naming the option, exit 2.
 */
export function dayOption(value: string): string {
  if (!isCalendarDay(value)) throw new InvalidArgumentError('must be a date YYYY-MM-DD');
  return value;
}

/** The option parser of a page size: an integer from 1 to 1000. */
export function limitOption(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000)
    throw new InvalidArgumentError('must be an integer from 1 to 1000');
  return n;
}

/** The option parser of every instant option: an ISO 8601 date or date-time (core/days.ts's parseIsoInstant). */
export function instantOption(value: string): Date {
  const parsed = parseIsoInstant(value);
  if (!parsed) throw new InvalidArgumentError('must be an ISO 8601 date (YYYY-MM-DD) or date-time');
  return parsed.instant;
}
