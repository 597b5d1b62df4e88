// Calendar arithmetic for TACSI periods, on 'YYYY-MM-DD' strings in UTC. Weekly periods are ISO
// weeks (Monday to Sunday) named by their Sunday; daily periods are single UTC days.
import type { Cadence } from './privacy/index.ts';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(time).toISOString().slice(0, 10) === value;
}

function toTime(date: string): number {
  if (!isIsoDate(date)) throw new RangeError(`invalid date ${date}, expected YYYY-MM-DD`);
  return Date.parse(`${date}T00:00:00Z`);
}

export function addDays(date: string, days: number): string {
  return new Date(toTime(date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from a to b (positive when b is later). */
export function daysBetween(a: string, b: string): number {
  return Math.round((toTime(b) - toTime(a)) / DAY_MS);
}

/** The UTC calendar day of an instant. */
export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

/** ISO weekday: Monday 1 ... Sunday 7. */
export function isoWeekday(date: string): number {
  return new Date(toTime(date)).getUTCDay() || 7;
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
  return isIsoDate(periodEnd) && (cadence === 'daily' || isSunday(periodEnd));
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
