// Calendar arithmetic for TACSI periods, on 'YYYY-MM-DD' strings in UTC. Weekly periods are ISO
// weeks (Monday to Sunday) named by their Sunday; daily periods are single UTC days.
import { addDays, dayNumber, isCalendarDay } from '../core/days.ts';
import type { Cadence } from './privacy/index.ts';

/** ISO weekday: Monday 1 ... Sunday 7. */
export function isoWeekday(date: string): number {
  // Epoch day 0, 1970-01-01, was a Thursday (ISO weekday 4).
  return ((((dayNumber(date) + 3) % 7) + 7) % 7) + 1;
}

export function isSunday(date: string): boolean {
  return isoWeekday(date) === 7;
}

/** The Sunday ending the ISO week that contains `date`. */
export function weekEndOf(date: string): string {
  return addDays(date, 7 - isoWeekday(date));
}

/** First day of the period that ends on `periodEnd`. */
export function periodStart(cadence: Cadence, periodEnd: string): string {
  return cadence === 'weekly' ? addDays(periodEnd, -6) : periodEnd;
}

/** True when `periodEnd` names a period of the cadence (weekly periods end on Sundays). */
export function isPeriodEnd(cadence: Cadence, periodEnd: string): boolean {
  return isCalendarDay(periodEnd) && (cadence === 'daily' || isSunday(periodEnd));
}

/**
 * The latest period of the cadence that is over on `today` (UTC): yesterday for daily, the last
 * Sunday before today for weekly. A period is only ever published once it is over.
 */
export function lastCompletedPeriodEnd(cadence: Cadence, today: string): string {
  const yesterday = addDays(today, -1);
  return cadence === 'daily' ? yesterday : addDays(weekEndOf(yesterday), isSunday(yesterday) ? 0 : -7);
}

/** The `count` latest period ends of the cadence ending on or before `last`, oldest first. */
export function trailingPeriodEnds(cadence: Cadence, last: string, count: number): string[] {
  const step = cadence === 'weekly' ? 7 : 1;
  const end = cadence === 'weekly' ? addDays(weekEndOf(last), isSunday(last) ? 0 : -7) : last;
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i--) out.push(addDays(end, -i * step));
  return out;
}

/** Every period end of the cadence in [from, to], oldest first. */
export function periodEndsBetween(cadence: Cadence, from: string, to: string): string[] {
  const out: string[] = [];
  let current = cadence === 'weekly' ? weekEndOf(from) : from;
  const step = cadence === 'weekly' ? 7 : 1;
  for (; current <= to; current = addDays(current, step)) out.push(current);
  return out;
}
