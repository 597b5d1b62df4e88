import { count, dayOf } from './daybook.ts';
import { addDays } from '../../core/days.ts';

/** A Graph API insights answer (Instagram and Facebook Pages share it). */
export interface GraphInsights {
  data?: Array<{ name: string; period?: string; values?: Array<{ value: unknown; end_time?: string }> }>;
}

/**
 * Daily values of one insights metric by UTC day. A `period=day` value carries the *end* of
 * its day (`end_time`, e.g. 2025-03-02T08:00:00+0000 for March 1st, Pacific), so the day it
 * measures is the one before end_time.
 */
export function insightSeries(insights: GraphInsights, metric: string): Map<string, number> {
  const out = new Map<string, number>();
  const series = insights.data?.find((m) => m.name === metric && (m.period ?? 'day') === 'day');
  for (const v of series?.values ?? []) {
    const end = dayOf(v.end_time);
    if (!end) continue;
    const day = addDays(end, -1);
    out.set(day, (out.get(day) ?? 0) + count(v.value));
  }
  return out;
}

/** Unix seconds of a day's start (Graph API `since` / `until`). */
export function unixDay(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}
