import { describe, expect, it } from 'vitest';
import {
  isPeriodEnd,
  lastCompletedPeriodEnd,
  periodEndsBetween,
  trailingPeriodEnds,
  weekEndOf,
} from '../../src/tacsi/periods.ts';
import { isCalendarDay } from '../../src/core/days.ts';

describe('TACSI periods', () => {
  it('names ISO weeks by their Sunday', () => {
    // 2024-12-30 (Monday) starts ISO week 2025-W01, across the year boundary.
    expect(weekEndOf('2024-12-30')).toBe('2025-01-05');
    expect(weekEndOf('2025-01-05')).toBe('2025-01-05');
    expect(weekEndOf('2025-01-06')).toBe('2025-01-12');
    expect(isPeriodEnd('weekly', '2025-01-12')).toBe(true);
    expect(isPeriodEnd('weekly', '2025-01-13')).toBe(false);
    expect(isPeriodEnd('daily', '2025-01-13')).toBe(true);
    expect(isCalendarDay('2025-02-29')).toBe(false);
    expect(isCalendarDay('2024-02-29')).toBe(true);
  });

  it('only ever offers periods that are over', () => {
    // Monday: last week ended yesterday. Sunday: the week still runs, so the previous Sunday.
    expect(lastCompletedPeriodEnd('weekly', '2025-03-17')).toBe('2025-03-16');
    expect(lastCompletedPeriodEnd('weekly', '2025-03-16')).toBe('2025-03-09');
    expect(lastCompletedPeriodEnd('weekly', '2025-03-20')).toBe('2025-03-16');
    expect(lastCompletedPeriodEnd('daily', '2025-03-01')).toBe('2025-02-28');
  });

  it('lists trailing and in-range period ends oldest first', () => {
    expect(trailingPeriodEnds('weekly', '2025-03-16', 3)).toEqual(['2025-03-02', '2025-03-09', '2025-03-16']);
    expect(trailingPeriodEnds('daily', '2025-03-01', 2)).toEqual(['2025-02-28', '2025-03-01']);
    expect(periodEndsBetween('weekly', '2025-03-04', '2025-03-20')).toEqual(['2025-03-09', '2025-03-16']);
  });
});
