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
