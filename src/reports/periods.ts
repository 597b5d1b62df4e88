import { addDays, daysInMonth, dayNumber, formatDay } from '../core/days.ts';

/** How often a schedule reports: each ISO week (Monday to Sunday) or each calendar month, in UTC days. */
export const CADENCES = ['weekly', 'monthly'] as const;
export type Cadence = (typeof CADENCES)[number];

export interface Period {
  /** First day (YYYY-MM-DD), inclusive. */
  start: string;
  /** Last day, inclusive. */
  end: string;
}

/** The week (Monday-Sunday) or month holding `day`. */
export function periodContaining(cadence: Cadence, day: string): Period {
  if (cadence === 'weekly') {
    const n = dayNumber(day);
    // Epoch day 0 (1970-01-01) was a Thursday: (n + 3) mod 7 is 0 on Mondays.
    const monday = n - ((((n + 3) % 7) + 7) % 7);
    return { start: formatDay(monday), end: formatDay(monday + 6) };
  }
  const [y, m] = day.split('-').map(Number) as [number, number];
  const month = `${day.slice(0, 7)}`;
  return { start: `${month}-01`, end: `${month}-${String(daysInMonth(y, m)).padStart(2, '0')}` };
}

/** The latest period that has ended before `today` (the one a scheduled run reports on). */
export function latestClosedPeriod(cadence: Cadence, today: string): Period {
  return periodContaining(cadence, addDays(periodContaining(cadence, today).start, -1));
}

/** The period before `period`. */
export function previousPeriod(cadence: Cadence, period: Period): Period {
  return periodContaining(cadence, addDays(period.start, -1));
}
