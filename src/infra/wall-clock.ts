/**
 * The real clock, for time that passes in the world whatever the service's business clock says:
 * how long a run took, timeouts, and pacing a remote platform (its Retry-After and reset instants,
 * the sync breaker, app-wide quotas, a request window the platform checks against its own clock).
 * Business time (days, `created_at`, what is due, what has expired) is `ctx.now()`, which tests set.
 *
 * ESLint (eslint.config.js) refuses `Date.now()` and `new Date()` in src/ outside src/infra/ and the
 * service's default clock (src/service.ts), so code elsewhere reads the real clock only through these
 * names, which say why. `performance.now()` (a monotonic clock, never a date) needs no such rule.
 */
export function wallClockMs(): number {
  return Date.now();
}

/** Elapsed real time since it was started, as "12.3 s" (progress lines of long runs). */
export function stopwatch(): { elapsed(): string } {
  const started = performance.now();
  return { elapsed: () => `${((performance.now() - started) / 1000).toFixed(1)} s` };
}

/** How often a long step reports how far it has got. */
export const PROGRESS_EVERY_MS = 5_000;

/**
 * Progress of a long step through `total` items, for a person watching a terminal: `done(n)` logs
 * "<label>: n of total <unit> (12.3 s)" when PROGRESS_EVERY_MS have passed since the last line, so a
 * step of a minute says what it is doing about a dozen times and a fast one not at all.
 */
export function progress(
  log: (line: string) => void,
  label: string,
  total: number,
  unit: string,
  everyMs = PROGRESS_EVERY_MS,
): { done(n: number): void } {
  const watch = stopwatch();
  let last = performance.now();
  return {
    done(n) {
      const now = performance.now();
      if (now - last < everyMs || n >= total) return;
      last = now;
      log(`${label}: ${n} of ${total} ${unit} (${watch.elapsed()})`);
    },
  };
}
