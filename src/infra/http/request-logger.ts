import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogArgs = [unknown, ...unknown[]];

/**
 * A request's logger whose pino child is built on its first enabled log call. Fastify builds a child
 * per request (its bindings serialized to JSON through the redaction rules); below `info`, where
 * no per-request line is written, most requests never log, and that child was a measured share of
 * every route's CPU. Lines written through it are exactly the child's.
 */
class LazyRequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #log(level: Level, args: LogArgs): void {
    if (this.#child !== undefined || this.#parent.isLevelEnabled(level))
      (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  bindings(): Bindings {
    return this.#real().bindings();
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }
  fatal(...args: LogArgs): void {
    this.#log('fatal', args);
  }
  error(...args: LogArgs): void {
    this.#log('error', args);
  }
  warn(...args: LogArgs): void {
    this.#log('warn', args);
  }
  info(...args: LogArgs): void {
    this.#log('info', args);
  }
  debug(...args: LogArgs): void {
    this.#log('debug', args);
  }
  trace(...args: LogArgs): void {
    this.#log('trace', args);
  }
  silent(): void {}
}

/**
 * Fastify's `childLoggerFactory`: the usual pino child when `info` is enabled (every request logs
 * "incoming request" then) or the route sets its own level, a lazy one otherwise.
 */
export function requestChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const parent = logger as unknown as Logger; // Fastify's logger here is the pino instance
  if (options.level || parent.isLevelEnabled('info')) return logger.child(bindings, options);
  return new LazyRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
