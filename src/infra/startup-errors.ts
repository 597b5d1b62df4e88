import { ConfigError, type Config } from './config.ts';
import { KeyRingError } from './crypto/keyring.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';

/**
 * Exit codes of a failed start (sysexits.h), documented in docs/operations.md:
 * - 78 EX_CONFIG: a setting is wrong (a bad value, a database that does not exist, credentials
 *   refused, a folder that cannot be written, an address not on this machine). Fix the setting.
 * - 69 EX_UNAVAILABLE: a dependency is not there right now (the database server is down or
 *   unreachable, the port is taken, DATA_DIR is held by another process). Retry later.
 * - 70 EX_SOFTWARE: anything else (a bug); the stack is printed with LOG_LEVEL=debug.
 */
export const EXIT_CONFIG = 78;
export const EXIT_UNAVAILABLE = 69;
export const EXIT_SOFTWARE = 70;

export interface StartupFailure {
  exitCode: number;
  /** One line: the variable at fault and the cause. */
  message: string;
}

/** A start that failed, described (for a caller that reports it rather than exiting, as the CLI does). */
export class StartupError extends Error {
  readonly failure: StartupFailure;
  constructor(failure: StartupFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** The codes of an error and of the errors it wraps (AggregateError for several addresses, cause). */
function codesOf(error: any, depth = 0): string[] {
  if (!error || typeof error !== 'object' || depth > 4) return [];
  const own = typeof error.code === 'string' ? [error.code] : [];
  const nested = [...(Array.isArray(error.errors) ? error.errors : []), error.cause].flatMap((e) =>
    codesOf(e, depth + 1),
  );
  return [...own, ...nested];
}

/** The server a postgres URL names, without credentials. */
function serverOf(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}`;
  } catch {
    return 'the configured server';
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Classifies an error thrown while starting (config, database, listen) into a clean message and code. */
export function describeStartupFailure(error: unknown, config: Config | undefined): StartupFailure {
  const e = error as any;
  const codes = codesOf(e);
  const message = oneLine(String(e?.message ?? error));
  if (error instanceof ConfigError)
    return { exitCode: EXIT_CONFIG, message: `invalid configuration: ${message}` };
  if (error instanceof KeyRingError) return { exitCode: EXIT_CONFIG, message: `ENCRYPTION_KEYS: ${message}` };
  if (error instanceof DataDirLockedError)
    return { exitCode: EXIT_UNAVAILABLE, message: `DATA_DIR: ${message}` };

  // listen(): the port or the address.
  if (e?.syscall === 'listen' || codes.includes('EADDRINUSE')) {
    const where = config ? `${config.host}:${config.port}` : 'the address';
    if (codes.includes('EADDRINUSE'))
      return { exitCode: EXIT_UNAVAILABLE, message: `PORT: ${where} is already in use by another process` };
    if (codes.includes('EADDRNOTAVAIL'))
      return { exitCode: EXIT_CONFIG, message: `HOST: ${config?.host} is not an address of this machine` };
    if (codes.includes('EACCES'))
      return {
        exitCode: EXIT_CONFIG,
        message: `PORT: not allowed to listen on ${where} (ports below 1024 need privileges)`,
      };
  }

  if (config?.databaseUrl) {
    const server = serverOf(config.databaseUrl);
    if (codes.includes('3D000'))
      return {
        exitCode: EXIT_CONFIG,
        message: `DATABASE_URL: ${message} on ${server}; create it first (createdb, see README)`,
      };
    if (codes.includes('28P01') || codes.includes('28000'))
      return {
        exitCode: EXIT_CONFIG,
        message: `DATABASE_URL: the server ${server} refused the credentials (${message})`,
      };
    if (
      codes.some((c) => UNREACHABLE.has(c)) ||
      /timeout exceeded when trying to connect|Connection terminated/i.test(message)
    )
      return {
        exitCode: EXIT_UNAVAILABLE,
        message: `DATABASE_URL: cannot reach the PostgreSQL server at ${server} (${codes.find((c) => UNREACHABLE.has(c)) ?? 'connection timed out'}); is it running?`,
      };
    if (codes.some((c) => /^(08|57P0|53300)/.test(c)))
      return {
        exitCode: EXIT_UNAVAILABLE,
        message: `DATABASE_URL: the server ${server} is not accepting connections (${message})`,
      };
  } else if (
    codes.includes('EACCES') ||
    codes.includes('EROFS') ||
    codes.includes('ENOTDIR') ||
    codes.includes('EPERM')
  ) {
    return {
      exitCode: EXIT_CONFIG,
      message: `DATA_DIR: cannot use ${config?.dataDir ?? 'the data folder'} (${message})`,
    };
  }
  return { exitCode: EXIT_SOFTWARE, message: `failed to start: ${message}` };
}
