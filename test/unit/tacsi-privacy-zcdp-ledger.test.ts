import { describe, expect, it } from 'vitest';
import { dayNumber } from '../../src/core/days.ts';
import {
  RHO_NANO,
  TACSI_M2,
  checkAnnualRhoCap,
  isHistogramWeek,
  maxRollingRho,
  ratioValue,
  releaseCharge,
  rhoInWindow,
  type ZcdpCharge,
} from '../../src/tacsi/privacy/index.ts';

const m = TACSI_M2;
const DAY = 86_400_000;
const iso = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
const isSunday = (day: number) => new Date(day * DAY).getUTCDay() === 0;

/** One entity's regular tacsi-m2 releases over [from, to] (day numbers) for one sector. */
function schedule(
  from: number,
  to: number,
  sectorHasDaily: (day: number) => boolean,
  scope = 'beauty',
): ZcdpCharge[] {
  const out: ZcdpCharge[] = [];
  for (let d = from; d <= to; d++) {
    if (sectorHasDaily(d)) out.push(releaseCharge('daily', scope, iso(d), m));
    if (!isSunday(d)) continue;
    // The week's cell: derived (free) when the week had daily cells, otherwise noised directly.
    let daily = false;
    for (let k = 0; k < 7; k++) daily ||= sectorHasDaily(d - k);
    out.push(releaseCharge(daily ? 'weekly-derived' : 'weekly', scope, iso(d), m));
    out.push(releaseCharge('headline', 'headline', iso(d), m));
    if (isHistogramWeek(iso(d))) out.push(releaseCharge('histogram', scope, iso(d), m));
  }
  return out;
}

/** Publish charges one by one through the cap check, as the publisher does; returns the accepted ones. */
function publishAll(charges: readonly ZcdpCharge[]): { accepted: ZcdpCharge[]; refused: number } {
  const accepted: ZcdpCharge[] = [];
  let refused = 0;
  for (const c of charges) {
    const check = checkAnnualRhoCap(accepted, c, m);
    expect(check.alreadyCharged).toBe(false);
    if (check.allowed) accepted.push(c);
    else refused += 1;
  }
  return { accepted, refused };
}

const from = dayNumber('2027-01-04');
const to = dayNumber('2028-12-31');
const nano = (kind: Parameters<typeof releaseCharge>[0]) => releaseCharge(kind, 's', '2027-01-01', m).rhoNano;

describe('zCDP ledger: charges', () => {
  it('rounds each charge up to whole 1e-9 rho, and post-processing costs nothing', () => {
    expect(nano('daily')).toBe(Math.ceil((10 / 1089) * RHO_NANO));
    expect(nano('daily')).toBe(9_182_737);
    expect(nano('weekly')).toBe(59_171_598);
    expect(nano('histogram')).toBe(111_111_112);
    expect(nano('weekly-derived')).toBe(0);
    expect(nano('headline')).toBe(0);
    // A year of daily charges overstates the exact 3650/1089 by less than 365 units: no drift.
    const year = 365 * nano('daily');
    const exact = (3650 / 1089) * RHO_NANO;
    expect(year).toBeGreaterThanOrEqual(exact);
    expect(year - exact).toBeLessThan(365);
    expect(() => releaseCharge('daily', 's', '2027-02-30', m)).toThrow(RangeError);
    expect(() => releaseCharge('monthly' as never, 's', '2027-02-01', m)).toThrow(RangeError);
  });

  it('sums a window inclusively at both ends and refuses malformed charges', () => {
    const charges = [
      releaseCharge('weekly', 's', '2027-01-03', m),
      releaseCharge('weekly', 's', '2028-01-02', m),
    ];
    // 2027-01-03 .. 2028-01-02 is 365 days inclusive: both count; a day later the first drops out.
    expect(rhoInWindow(charges, '2028-01-02')).toBeCloseTo((2 * 59_171_598) / RHO_NANO, 12);
    expect(rhoInWindow(charges, '2028-01-03')).toBeCloseTo(59_171_598 / RHO_NANO, 12);
    expect(maxRollingRho([])).toEqual({ rho: 0, rhoNano: 0, windowEnd: null });
    expect(() => checkAnnualRhoCap([], { ...charges[0]!, rhoNano: -1 }, m)).toThrow(RangeError);
    expect(() => checkAnnualRhoCap([], { ...charges[0]!, rhoNano: 0.5 }, m)).toThrow(RangeError);
  });

  it('treats a direct and a derived weekly cell of the same sector-week as one slot', () => {
    const existing = [releaseCharge('weekly-derived', 'beauty', '2027-03-07', m)];
    expect(
      checkAnnualRhoCap(existing, releaseCharge('weekly', 'beauty', '2027-03-07', m), m).alreadyCharged,
    ).toBe(true);
    expect(
      checkAnnualRhoCap(existing, releaseCharge('weekly', 'beauty', '2027-03-14', m), m).alreadyCharged,
    ).toBe(false);
    expect(
      checkAnnualRhoCap(existing, releaseCharge('weekly', 'fashion', '2027-03-07', m), m).alreadyCharged,
    ).toBe(false);
    expect(
      checkAnnualRhoCap(existing, releaseCharge('daily', 'beauty', '2027-03-07', m), m).alreadyCharged,
    ).toBe(false);
    expect(
      checkAnnualRhoCap(
        [releaseCharge('histogram', 'beauty', '2027-03-28', m)],
        releaseCharge('histogram', 'beauty', '2027-03-28', m),
        m,
      ).alreadyCharged,
    ).toBe(true);
  });
});

describe('zCDP ledger: the schedule fits the annual cap of rho 5', () => {
  it('has at most 13 histogram weeks, 53 week ends and 365 days in any window (400-year cycle)', () => {
    const start = dayNumber('2000-01-02'); // a Sunday
    const cycle = 146_097; // days in 400 Gregorian years, a whole number of weeks
    const lastWeeks: number[] = [];
    const sundays: number[] = [];
    for (let d = start; d < start + cycle + 400; d += 7) {
      sundays.push(d);
      if (isHistogramWeek(iso(d))) lastWeeks.push(d);
    }
    const maxIn = (days: number[]) => {
      let best = 0;
      for (let i = 0, j = 0; i < days.length; i++) {
        while (days[i]! - days[j]! >= 365) j++;
        best = Math.max(best, i - j + 1);
      }
      return best;
    };
    expect(maxIn(lastWeeks)).toBe(m.releasesPerWindow.histogram);
    expect(maxIn(lastWeeks)).toBe(13);
    expect(maxIn(sundays)).toBe(m.releasesPerWindow.weekly);
    expect(m.releasesPerWindow.daily).toBe(365);
    expect(isHistogramWeek('2027-01-31')).toBe(true);
    expect(isHistogramWeek('2027-01-24')).toBe(false);
  });

  it.each([
    ['daily cells every day (weekly derived)', (): boolean => true, m.windowRho.dailySchedule],
    ['direct weekly cells only', (): boolean => false, m.windowRho.weeklySchedule],
  ] as const)('%s: every release accepted, busiest window under the stated bound', (_, hasDaily, cells) => {
    const { accepted, refused } = publishAll(schedule(from, to, hasDaily));
    expect(refused).toBe(0);
    const max = maxRollingRho(accepted);
    const bound = ratioValue(cells) + ratioValue(m.windowRho.histograms);
    expect(max.rho).toBeLessThanOrEqual(bound + 1e-6);
    expect(max.rho).toBeGreaterThan(ratioValue(cells) + 12 / 9 - 1e-6); // at least 12 histograms in it
    expect(max.rho).toBeLessThanOrEqual(ratioValue(m.windowRho.scheduleBound));
    expect(max.rhoNano).toBeLessThanOrEqual(m.annualRhoCapNano);
  });

  it('the worst mix (a direct week, then daily weeks) also fits, and the bound is attained there', () => {
    // The sector loses its daily series for the week ending 2027-06-06, then has it again.
    const gapWeekEnd = dayNumber('2027-06-06');
    const hasDaily = (d: number) => !(d > gapWeekEnd - 7 && d <= gapWeekEnd);
    const { accepted, refused } = publishAll(schedule(from, to, hasDaily));
    expect(refused).toBe(0);
    // The window starting on the direct week's last day: its weekly charge, then 52 weeks of daily cells.
    const cells = accepted.filter((c) => c.kind !== 'histogram');
    const cellsOnly = rhoInWindow(cells, iso(gapWeekEnd + 364));
    expect(cellsOnly).toBeCloseTo(ratioValue(m.windowRho.mixedWorst), 6);
    expect(maxRollingRho(accepted).rho).toBeLessThanOrEqual(ratioValue(m.windowRho.scheduleBound));
  });

  it('refuses the first release that would take the busiest window past the cap, and no earlier one', () => {
    const { accepted } = publishAll(schedule(from, to, () => true));
    const { rhoNano: busiest, windowEnd } = maxRollingRho(accepted);
    // The entity moves to other sectors too (charged in every series): extra direct weekly cells on
    // the busiest window's last day. Exactly floor(headroom / charge) of them fit.
    const fits = Math.floor((m.annualRhoCapNano - busiest) / nano('weekly'));
    expect(fits).toBe(3); // (5 - 3650/1089 - 13/9) / (10/169) = 3.4
    const ledger = [...accepted];
    for (let i = 0; i < fits; i++) {
      const extra = releaseCharge('weekly', `other-${i}`, windowEnd!, m);
      const check = checkAnnualRhoCap(ledger, extra, m);
      expect(check.allowed).toBe(true);
      ledger.push(extra);
    }
    const oneMore = checkAnnualRhoCap(ledger, releaseCharge('weekly', 'one-more', windowEnd!, m), m);
    expect(oneMore.allowed).toBe(false);
    expect(oneMore.rhoAfter).toBeGreaterThan(5);
    expect(oneMore.worstWindowEnd).toBe(windowEnd);
    // A daily cell still fits where a weekly one does not only if the headroom allows it, exactly.
    const headroom = m.annualRhoCapNano - maxRollingRho(ledger).rhoNano;
    expect(checkAnnualRhoCap(ledger, releaseCharge('daily', 'x', windowEnd!, m), m).allowed).toBe(
      headroom >= nano('daily'),
    );
  });

  it('is exact at the cap: a charge reaching exactly 5 is allowed, one unit more is refused', () => {
    const base: ZcdpCharge[] = [
      { entityScope: 'a', kind: 'weekly', periodEnd: '2027-03-07', rhoNano: 4_000_000_000 },
      { entityScope: 'a', kind: 'histogram', periodEnd: '2027-09-26', rhoNano: 999_999_990 },
    ];
    const at = (rhoNano: number, periodEnd: string): ZcdpCharge => ({
      entityScope: 'b',
      kind: 'weekly',
      periodEnd,
      rhoNano,
    });
    expect(checkAnnualRhoCap(base, at(10, '2027-12-05'), m).allowed).toBe(true);
    expect(checkAnnualRhoCap(base, at(11, '2027-12-05'), m).allowed).toBe(false);
    // A backfill before both charges is refused through the later windows that contain it.
    const back = checkAnnualRhoCap(base, at(11, '2026-12-06'), m);
    expect(back.allowed).toBe(false);
    expect(back.worstWindowEnd).toBe('2027-09-26');
    // Outside every window with them (366 days before the later one's window start), it is free.
    expect(checkAnnualRhoCap(base, at(11, '2026-03-06'), m).allowed).toBe(true);
  });
});
