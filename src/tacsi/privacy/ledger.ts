// Per-entity privacy ledger arithmetic (pure; the publisher stores the entries).
//
// Every published cell an entity is in charges that entity the cell's epsilon. By basic composition
// the entity's loss over a period is the sum of its charges, and the methodology caps that sum over
// every rolling 365-day window. Epsilons are summed as integer nano-units so a long schedule that
// exactly meets the cap is never refused by accumulated floating-point error.
import { dayNumber, formatDay } from '../../core/days.ts';
import { ROLLING_WINDOW_DAYS, type Cadence, type Methodology } from './methodology.ts';

export interface LedgerEntry {
  /** The published scope the charge came from: a sector slug, or 'headline'. */
  readonly entityScope: string;
  readonly cadence: Cadence;
  /** End of the published period, YYYY-MM-DD. */
  readonly periodEnd: string;
  readonly epsilon: number;
}

export interface AnnualCapCheck {
  /** True when publishing `newEntry` keeps every rolling window at or under the cap. */
  readonly allowed: boolean;
  /** The largest rolling-window total that would result, over windows containing the new entry. */
  readonly epsilonAfter: number;
  readonly cap: number;
  /** End date of the window attaining `epsilonAfter`. */
  readonly worstWindowEnd: string;
  /**
   * True when the same scope, cadence and period is already charged: the cell was published, and
   * publishing it again with fresh noise would let averaging erase the noise. The publisher must
   * treat this as "nothing to do", whatever `allowed` says.
   */
  readonly alreadyCharged: boolean;
}

const NANO = 1e9;

function toNano(epsilon: number): number {
  if (!Number.isFinite(epsilon) || epsilon < 0) throw new RangeError(`epsilon ${epsilon} must be >= 0`);
  const nano = Math.round(epsilon * NANO);
  if (!Number.isSafeInteger(nano)) throw new RangeError(`epsilon ${epsilon} is too large`);
  return nano;
}

/** Charges merged per day and sorted by day, with prefix sums so any window total is two lookups. */
export interface DailyTotals {
  readonly days: number[];
  /** prefix[i] = sum of the charges on days[0 .. i-1]. */
  readonly prefix: number[];
}

/** Daily totals of integer charges (nano-units), shared by the epsilon and the zCDP ledgers. */
export function dailyTotalsOf(
  charges: Iterable<{ readonly day: number; readonly units: number }>,
): DailyTotals {
  const byDay = new Map<number, number>();
  for (const c of charges) byDay.set(c.day, (byDay.get(c.day) ?? 0) + c.units);
  const days = [...byDay.keys()].sort((a, b) => a - b);
  const prefix = [0];
  for (const day of days) prefix.push(prefix[prefix.length - 1]! + byDay.get(day)!);
  return { days, prefix };
}

function dailyTotals(entries: readonly LedgerEntry[]): DailyTotals {
  return dailyTotalsOf(entries.map((e) => ({ day: dayNumber(e.periodEnd), units: toNano(e.epsilon) })));
}

/** Index of the first day >= target. */
export function lowerBound(days: readonly number[], target: number): number {
  let lo = 0;
  let hi = days.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (days[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sum of charges with period end in [endDay - 364, endDay]. */
export function windowNano({ days, prefix }: DailyTotals, endDay: number): number {
  const from = lowerBound(days, endDay - ROLLING_WINDOW_DAYS + 1);
  const to = lowerBound(days, endDay + 1);
  return prefix[to]! - prefix[from]!;
}

/**
 * The largest window total that adding `newUnits` on `newDay` produces, over every rolling window
 * containing that day: windows ending on it or on a later charge day less than 365 days after it
 * (backfills can arrive out of order).
 */
export function worstWindowWith(
  totals: DailyTotals,
  newDay: number,
  newUnits: number,
): { units: number; endDay: number } {
  let units = windowNano(totals, newDay) + newUnits;
  let endDay = newDay;
  for (let i = lowerBound(totals.days, newDay + 1); i < totals.days.length; i++) {
    const end = totals.days[i]!;
    if (end >= newDay + ROLLING_WINDOW_DAYS) break;
    const total = windowNano(totals, end) + newUnits;
    if (total > units) {
      units = total;
      endDay = end;
    }
  }
  return { units, endDay };
}

/**
 * The largest total over any rolling 365-day window, and the end day of a window attaining it (null
 * when there are no charges). A window total only rises when its end reaches a new charge, so checking
 * windows that end on a charge day finds the maximum. Shared by the epsilon and the zCDP ledgers.
 */
export function maxWindow(totals: DailyTotals): { units: number; endDay: number | null } {
  let units = 0;
  let endDay: number | null = null;
  for (const day of totals.days) {
    const total = windowNano(totals, day);
    if (endDay === null || total > units) {
      units = total;
      endDay = day;
    }
  }
  return { units, endDay };
}

/** An entity's total epsilon over the 365 days ending on `windowEnd` (inclusive at both ends). */
export function epsilonInWindow(entries: readonly LedgerEntry[], windowEnd: string): number {
  return windowNano(dailyTotals(entries), dayNumber(windowEnd)) / NANO;
}

/** The largest rolling-window total and the end of a window attaining it (null without entries). */
export function maxRollingEpsilon(entries: readonly LedgerEntry[]): {
  epsilon: number;
  windowEnd: string | null;
} {
  const { units, endDay } = maxWindow(dailyTotals(entries));
  return { epsilon: units / NANO, windowEnd: endDay === null ? null : formatDay(endDay) };
}

/**
 * Check a new charge against the methodology's annual cap over every rolling window that would
 * contain it: windows ending on its date or on a later charge less than 365 days after it, which
 * covers backfills published out of order.
 */
export function checkAnnualCap(
  existingEntriesForEntity: readonly LedgerEntry[],
  newEntry: LedgerEntry,
  methodology: Methodology,
): AnnualCapCheck {
  const totals = dailyTotals(existingEntriesForEntity);
  const newDay = dayNumber(newEntry.periodEnd);
  const capNano = toNano(methodology.annualCapPerEntity);
  const { units: worst, endDay: worstDay } = worstWindowWith(totals, newDay, toNano(newEntry.epsilon));
  const alreadyCharged = existingEntriesForEntity.some(
    (e) =>
      e.entityScope === newEntry.entityScope &&
      e.cadence === newEntry.cadence &&
      e.periodEnd === newEntry.periodEnd,
  );
  return {
    allowed: worst <= capNano,
    epsilonAfter: worst / NANO,
    cap: methodology.annualCapPerEntity,
    worstWindowEnd: formatDay(worstDay),
    alreadyCharged,
  };
}

/** The ledger charge for one entity's inclusion in one published cell. */
export function cellCharge(
  entityScope: string,
  cadence: Cadence,
  periodEnd: string,
  methodology: Methodology,
): LedgerEntry {
  dayNumber(periodEnd);
  if (!methodology.cadences.includes(cadence)) {
    throw new RangeError(`methodology ${methodology.version} does not cover ${cadence} cells`);
  }
  return { entityScope, cadence, periodEnd, epsilon: methodology.epsilonPerCell };
}
