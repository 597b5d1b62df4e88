/** UTC calendar arithmetic on YYYY-MM-DD strings, for the generated data. */

const DAY_MS = 86_400_000;

export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** The last Sunday strictly before `instant`'s day: the end of the latest completed ISO week. */
export function lastCompletedWeekEnd(instant: Date): string {
  const weekday = instant.getUTCDay() || 7; // Monday 1 ... Sunday 7
  return addDays(utcDay(instant), -weekday);
}
