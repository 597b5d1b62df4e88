/**
 * The audit quota period is the calendar month in UTC, for monthly and annual billing alike:
 * the spec states audit limits per month. Returns [start, end) of the period holding `now`.
 */
export function currentAuditPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
