import { addDays, utcDay } from '../src/core/days.ts';

/** UTC calendar arithmetic for the generated data (the days themselves are src/core/days.ts). */

/** The last Sunday strictly before `instant`'s day: the end of the latest completed ISO week. */
export function lastCompletedWeekEnd(instant: Date): string {
  const weekday = instant.getUTCDay() || 7; // Monday 1 ... Sunday 7
  return addDays(utcDay(instant), -weekday);
}
