import { describe, expect, it } from 'vitest';
import {
  cellCharge,
  checkAnnualCap,
  epsilonInWindow,
  getMethodology,
  maxRollingEpsilon,
  type LedgerEntry,
} from '../../src/tacsi/privacy/index.ts';
import { dayNumber } from '../../src/core/days.ts';

const m1 = getMethodology('tacsi-m1');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const entry = (periodEnd: string, epsilon = 6, cadence: 'weekly' | 'daily' = 'daily'): LedgerEntry => ({
  entityScope: 'beauty',
  cadence,
  periodEnd,
  epsilon,
});

/** The full tacsi-m1 schedule for one entity: sector and headline, daily cells and weekly cells ending Sundays. */
function schedule(fromMs: number, toMs: number): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (let d = fromMs; d <= toMs; d += DAY) {
    for (const scope of ['beauty', 'headline']) {
      out.push(cellCharge(scope, 'daily', iso(d), m1));
      if (new Date(d).getUTCDay() === 0) out.push(cellCharge(scope, 'weekly', iso(d), m1));
    }
  }
  return out;
}

describe('rolling-window sums', () => {
  it('counts period ends in the 365 days ending on the window end, both ends inclusive', () => {
    const entries = [entry('2025-01-01'), entry('2025-12-31'), entry('2026-01-01', 1.5)];
    expect(epsilonInWindow(entries, '2025-12-31')).toBe(12);
    expect(epsilonInWindow(entries, '2026-01-01')).toBe(7.5); // 2025-01-01 has just left
    expect(epsilonInWindow(entries, '2024-12-31')).toBe(0);
    expect(epsilonInWindow([], '2025-06-01')).toBe(0);
  });

  it('uses 365 days, not a calendar year, across a leap day', () => {
    // 2024 has 366 days: the window ending 2024-12-31 starts on 2024-01-02.
    const entries = [entry('2024-01-01'), entry('2024-01-02'), entry('2024-12-31')];
    expect(epsilonInWindow(entries, '2024-12-31')).toBe(12);
    expect(epsilonInWindow(entries, '2024-12-30')).toBe(12);
  });

  it('finds the worst window', () => {
    const entries = [
      entry('2025-01-01', 1),
      entry('2025-06-01', 2),
      entry('2026-03-01', 4),
      entry('2026-05-01', 8),
    ];
    expect(maxRollingEpsilon(entries)).toEqual({ epsilon: 14, windowEnd: '2026-05-01' });
    expect(maxRollingEpsilon([])).toEqual({ epsilon: 0, windowEnd: null });
  });

  it('sums many fractional epsilons without floating-point drift', () => {
    const entries = Array.from({ length: 300 }, (_, i) => entry(iso(Date.UTC(2025, 0, 1) + i * DAY), 0.1));
    expect(epsilonInWindow(entries, '2025-12-31')).toBe(30);
  });

  it('refuses malformed dates', () => {
    expect(() => dayNumber('2025-02-30')).toThrow(RangeError);
    expect(() => dayNumber('2025-2-3')).toThrow(RangeError);
    expect(() => dayNumber('2023-02-29')).toThrow(RangeError);
    expect(dayNumber('2024-02-29') - dayNumber('2024-02-28')).toBe(1);
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(() => epsilonInWindow([entry('yesterday')], '2025-01-01')).toThrow(RangeError);
    expect(() => epsilonInWindow([entry('2025-01-01', -1)], '2025-01-01')).toThrow(RangeError);
  });
});

describe('annual cap', () => {
  it('never refuses the regular schedule, which exactly fills the busiest window', () => {
    const all = schedule(Date.UTC(2024, 0, 1), Date.UTC(2026, 11, 31));
    const ledger: LedgerEntry[] = [];
    for (const e of all) {
      expect(checkAnnualCap(ledger, e, m1).allowed).toBe(true);
      ledger.push(e);
    }
    expect(maxRollingEpsilon(ledger).epsilon).toBe(m1.annualCapPerEntity);
  });

  it('refuses one cell more than the schedule in a full window', () => {
    // 2023 starts and ends on a Sunday: 53 weekly cells per scope in one 365-day window.
    const ledger = schedule(Date.UTC(2023, 0, 1), Date.UTC(2023, 11, 31));
    const full = maxRollingEpsilon(ledger);
    expect(full.windowEnd).toBe('2023-12-31');
    expect(full.epsilon).toBe(m1.annualCapPerEntity);
    // An ad-hoc extra cell (say a third scope) on the last day of the full window.
    const extra = cellCharge('beauty-extra', 'daily', full.windowEnd!, m1);
    expect(checkAnnualCap(ledger, extra, m1).allowed).toBe(false);
    const check = checkAnnualCap(ledger, extra, m1);
    expect(check).toMatchObject({ allowed: false, cap: m1.annualCapPerEntity, alreadyCharged: false });
    expect(check.epsilonAfter).toBe(m1.annualCapPerEntity + m1.epsilonPerCell);
  });

  it('checks later windows too, so an out-of-order backfill cannot overshoot', () => {
    // Fill the window ending 2025-12-31 from 2025-03-01 on, leaving early 2025 empty.
    const ledger = schedule(Date.UTC(2025, 2, 1), Date.UTC(2025, 11, 31));
    const headroom = m1.annualCapPerEntity - epsilonInWindow(ledger, '2025-12-31');
    const backfill = entry('2025-01-15', headroom + 1);
    // The window ending on the backfill's own date is nearly empty, but a later one would overflow.
    expect(epsilonInWindow(ledger, '2025-01-15')).toBe(0);
    const check = checkAnnualCap(ledger, backfill, m1);
    expect(check.allowed).toBe(false);
    expect(dayNumber(check.worstWindowEnd)).toBeGreaterThan(dayNumber('2025-01-15'));
    expect(checkAnnualCap(ledger, entry('2025-01-15', headroom), m1).allowed).toBe(true);
    // A day earlier it shares no window with 2025-12-31's cells, so the same charge fits.
    expect(checkAnnualCap(ledger, entry('2024-12-31', headroom + 1), m1).allowed).toBe(true);
  });

  it('flags a cell that is already charged, so the publisher does not re-noise it', () => {
    const ledger = [cellCharge('beauty', 'weekly', '2025-03-02', m1)];
    expect(checkAnnualCap(ledger, cellCharge('beauty', 'weekly', '2025-03-02', m1), m1).alreadyCharged).toBe(
      true,
    );
    expect(
      checkAnnualCap(ledger, cellCharge('headline', 'weekly', '2025-03-02', m1), m1).alreadyCharged,
    ).toBe(false);
    expect(checkAnnualCap(ledger, cellCharge('beauty', 'daily', '2025-03-02', m1), m1).alreadyCharged).toBe(
      false,
    );
  });

  it('charges a cell the methodology epsilon per cell', () => {
    expect(cellCharge('headline', 'daily', '2025-03-02', m1)).toEqual({
      entityScope: 'headline',
      cadence: 'daily',
      periodEnd: '2025-03-02',
      epsilon: m1.epsilonPerCell,
    });
    expect(() => cellCharge('beauty', 'daily', '2025-13-01', m1)).toThrow(RangeError);
  });
});
