// Per-entity zCDP ledger arithmetic for tacsi-m2 (pure; the publisher stores the charges).
//
// Every release an entity is in charges it that release's rho; zCDP composes by adding rho (Bun and
// Steinke 2016, composition lemma), and the methodology caps the sum over every rolling 365-day window. Each
// charge is an exact rational rounded UP to an integer of 1e-9 rho, and sums are integers, so the
// regular schedule (well under the cap) can never trip it by drift, while a charge that would take a
// window past the cap is always refused.
import { dayNumber, formatDay as dateOf } from '../../core/days.ts';
import { dailyTotalsOf, maxWindow, windowNano, worstWindowWith, type DailyTotals } from './ledger.ts';
import { RHO_NANO, type GaussianMethodology, type ReleaseKind } from './methodology-m2.ts';
import { ceilDiv } from './rational.ts';

export interface ZcdpCharge {
  /** The published scope: a sector slug, or 'headline'. */
  readonly entityScope: string;
  readonly kind: ReleaseKind;
  /** End of the published period, YYYY-MM-DD. */
  readonly periodEnd: string;
  /** rho in integer units of 1e-9, rounded up from the exact rational. */
  readonly rhoNano: number;
}

export interface RhoCapCheck {
  /** True when adding the charge keeps every rolling window at or under the cap. */
  readonly allowed: boolean;
  /** Largest rolling-window total that would result, over windows containing the new charge. */
  readonly rhoAfter: number;
  readonly rhoAfterNano: number;
  readonly cap: number;
  readonly capNano: number;
  /** End date of the window attaining rhoAfter. */
  readonly worstWindowEnd: string;
  /**
   * True when the same scope, period and cell slot is already recorded (a weekly cell is direct or
   * derived, never both): publishing it again with fresh noise would let averaging erase the noise,
   * so the publisher must treat this as "nothing to do", whatever `allowed` says. A correction is the
   * one exception: a new vintage, charged in full as a release of its own (docs/privacy.md section 3).
   */
  readonly alreadyCharged: boolean;
}

/** Direct and derived weekly cells occupy the same slot: one weekly cell per sector-week. */
function slotOf(kind: ReleaseKind): string {
  return kind === 'weekly-derived' ? 'weekly' : kind;
}

function checkNano(units: number): number {
  if (!Number.isSafeInteger(units) || units < 0)
    throw new RangeError(`rho units ${units} must be a safe integer >= 0`);
  return units;
}

function totalsOf(charges: readonly ZcdpCharge[]): DailyTotals {
  return dailyTotalsOf(charges.map((c) => ({ day: dayNumber(c.periodEnd), units: checkNano(c.rhoNano) })));
}

/** The ledger charge for one entity's inclusion in one release. */
export function releaseCharge(
  kind: ReleaseKind,
  entityScope: string,
  periodEnd: string,
  m: GaussianMethodology,
): ZcdpCharge {
  dayNumber(periodEnd);
  const rho = m.rhoPerRelease[kind];
  if (!rho) throw new RangeError(`unknown release kind ${kind}`);
  const rhoNano = Number(ceilDiv(BigInt(rho.numerator) * BigInt(RHO_NANO), BigInt(rho.denominator)));
  return { entityScope, kind, periodEnd, rhoNano };
}

/** An entity's total rho over the 365 days ending on `windowEnd` (inclusive at both ends). */
export function rhoInWindow(charges: readonly ZcdpCharge[], windowEnd: string): number {
  return windowNano(totalsOf(charges), dayNumber(windowEnd)) / RHO_NANO;
}

/** Largest rolling-window total and the end of a window attaining it (null without charges). */
export function maxRollingRho(charges: readonly ZcdpCharge[]): {
  rho: number;
  rhoNano: number;
  windowEnd: string | null;
} {
  const { units, endDay } = maxWindow(totalsOf(charges));
  return { rho: units / RHO_NANO, rhoNano: units, windowEnd: endDay === null ? null : dateOf(endDay) };
}

/**
 * Check a new charge against the annual rho cap over every rolling window that would contain it
 * (windows ending on its date or on a later charge less than 365 days after it, so backfills
 * published out of order are covered). `existing` is every charge of the entity, all scopes.
 */
export function checkAnnualRhoCap(
  existing: readonly ZcdpCharge[],
  newCharge: ZcdpCharge,
  m: GaussianMethodology,
): RhoCapCheck {
  const { units, endDay } = worstWindowWith(
    totalsOf(existing),
    dayNumber(newCharge.periodEnd),
    checkNano(newCharge.rhoNano),
  );
  const slot = slotOf(newCharge.kind);
  const alreadyCharged = existing.some(
    (c) =>
      c.entityScope === newCharge.entityScope &&
      c.periodEnd === newCharge.periodEnd &&
      slotOf(c.kind) === slot,
  );
  return {
    allowed: units <= m.annualRhoCapNano,
    rhoAfter: units / RHO_NANO,
    rhoAfterNano: units,
    cap: m.annualRhoCap.numerator / m.annualRhoCap.denominator,
    capNano: m.annualRhoCapNano,
    worstWindowEnd: dateOf(endDay),
    alreadyCharged,
  };
}

/**
 * True when `periodEnd` (a week's last day) is the last week end of its calendar month: the next
 * week end, 7 days later, falls in another month. The histogram is published with those weeks only.
 */
export function isHistogramWeek(periodEnd: string): boolean {
  const day = dayNumber(periodEnd);
  return dateOf(day + 7).slice(0, 7) !== periodEnd.slice(0, 7);
}
