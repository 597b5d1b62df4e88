// Corrections of published TACSI cells (docs/tacsi.md "Vintages and corrections"). A published cell is
// never updated: a correction stores a new vintage of it, with its reason and its own publication
// instant, through the publication path (the publication lock, the cohort query, the cap guard, the
// perturbation and storeM2 with its ledger rows):
//   a noised cell is noised again from the cohort as it is now, with fresh noise, and charged in full
//           to every entity in it (refused when that would pass the annual cap);
//   a weekly cell derived from its seven daily cells is corrected by correcting those seven (each
//           charged) and deriving it again;
//   the headline is derived again from the latest vintages of the sector cells;
// and the cells derived from a corrected cell (the week's derived weekly cell, the week's headline) get
// a new vintage with the same reason, derived again at no privacy cost. tacsi-m1 periods are closed.
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { addDays, utcDay } from '../core/days.ts';
import { RhoCapGuard } from './cap-guard.ts';
import { HEADLINE, loadMemberCohortRows } from './cohorts.ts';
import { notePublication } from './feed-cache.ts';
import { storedCutOver } from './ledger-store.ts';
import { publicationRefused } from './outcome.ts';
import { isPeriodEnd, periodStart, weekEndOf } from './periods.ts';
import { lockAndListSectors } from './publication-store.ts';
import {
  groupRows,
  key,
  loadM2State,
  seriesOf,
  storeM2,
  type CellToInsert,
  type M2State,
  type StoredCell,
} from './publish-m2.ts';
import {
  ROLLING_WINDOW_DAYS,
  TACSI_M2,
  assertPublicationRandomSource,
  cryptoRandomSource,
  deriveHeadline,
  deriveWeeklyFromDaily,
  perturbCellGaussian,
  type Cadence,
  type GaussianMethodology,
  type RandomSource,
} from './privacy/index.ts';

export const CORRECTION_REASON_MAX = 500;

export interface CorrectionRequest {
  /** A consumer sector slug, or 'headline' (weekly only). */
  sector: string;
  cadence: Cadence;
  periodEnd: string;
  /** Why the cell is corrected: published with the new vintage in the corrections feed. */
  reason: string;
  /** Parameters of tacsi-m2 (tests). */
  methodology?: GaussianMethodology;
  /** Must be the cryptographic source (the default); a seeded one is refused. */
  rng?: RandomSource;
}

/** One new vintage a correction stored. */
export interface Correction {
  sector: string;
  cadence: Cadence;
  periodEnd: string;
  vintage: number;
  derivation: 'noised' | 'daily' | 'sectors';
  /** The rho charged to each entity of the cell; null for a derived cell (post-processing, free). */
  rho: number | null;
  publishedAt: string;
}

type Ctx = Pick<AppContext, 'db' | 'now' | 'state'>;

/** Corrects one published cell; returns every vintage stored (the cell and the cells derived from it). */
export async function correctCell(ctx: Ctx, request: CorrectionRequest): Promise<Correction[]> {
  const reason = request.reason.trim();
  if (reason.length === 0)
    throw publicationRefused(
      'a correction needs a reason: it is published in the corrections feed',
      'reason',
    );
  if (reason.length > CORRECTION_REASON_MAX)
    throw publicationRefused(`the reason must be at most ${CORRECTION_REASON_MAX} characters`, 'reason');
  const { sector, cadence, periodEnd } = request;
  if (!isPeriodEnd(cadence, periodEnd))
    throw publicationRefused(
      cadence === 'weekly'
        ? `${periodEnd} is not a Sunday (weekly periods end on Sundays)`
        : `${periodEnd} is not a date`,
      'period_end',
    );
  if (sector === HEADLINE && cadence === 'daily')
    throw publicationRefused('tacsi-m2 publishes no daily headline: there is nothing to correct', 'cadence');
  const rng = request.rng ?? cryptoRandomSource();
  assertPublicationRandomSource(rng);
  const m = request.methodology ?? TACSI_M2;
  const publishedAt = ctx.now();
  const today = utcDay(publishedAt);

  const stored = await ctx.db.transaction().execute(async (trx) => {
    const allSectors = await lockAndListSectors(trx);
    if (sector !== HEADLINE && !allSectors.includes(sector))
      throw publicationRefused(`${sector} is not a consumer sector`, 'sector');
    const cut = await storedCutOver(trx);
    if (cut !== null && periodEnd < cut)
      throw publicationRefused(
        `the ${cadence} period ending ${periodEnd} is before the tacsi-m2 cut-over ${cut}: tacsi-m1 is closed and ` +
          'its archive is final; its cells are never corrected (docs/privacy.md)',
      );
    const week = cadence === 'weekly' ? periodEnd : weekEndOf(periodEnd);
    const state = await loadM2State(trx, m, periodStart('weekly', week), week, today);
    const target = (cadence === 'daily' ? state.daily : state.weekly).get(key(sector, periodEnd));
    if (!target)
      throw publicationRefused(
        `the ${cadence} cell ${sector} ${periodEnd} is not published: only a published cell can be corrected`,
      );
    const run = new CorrectionRun(trx, m, rng, state, reason);
    if (target.derivation === 'noised') {
      await run.renoise(sector, cadence, periodEnd, target);
    } else if (target.derivation === 'daily') {
      // The week's daily cells are its sources: they are corrected (each charged), then it is derived again.
      for (let i = 6; i >= 0; i--) {
        const day = addDays(week, -i);
        await run.renoise(sector, 'daily', day, state.daily.get(key(sector, day))!);
      }
    }
    // A weekly cell derived from the corrected daily cells is derived again.
    const weekly = cadence === 'daily' ? state.weekly.get(key(sector, week)) : target;
    if (weekly?.derivation === 'daily') run.rederiveWeekly(sector, week, weekly);
    // The headline is derived from the week's non-exclusive sector cells.
    const headline = state.weekly.get(key(HEADLINE, week));
    if (headline && (sector === HEADLINE || !state.exclusive.has(sector)))
      run.rederiveHeadline(week, allSectors, headline);
    await storeM2(trx, m, run.inserts, [], seriesOf(state), publishedAt);
    return run.inserts;
  });
  notePublication(ctx);
  return stored.map(({ cell, cadence: c, charge }) => ({
    sector: cell.sector,
    cadence: c,
    periodEnd: cell.periodEnd,
    vintage: cell.vintage!,
    derivation: cell.derivation,
    rho: charge ? charge.rhoNano / 1e9 : null,
    publishedAt: publishedAt.toISOString(),
  }));
}

/** The new vintages of one correction, built against the loaded state (which they update). */
class CorrectionRun {
  readonly inserts: CellToInsert[] = [];
  readonly #guard: RhoCapGuard;
  readonly trx: Kysely<DB>;
  readonly m: GaussianMethodology;
  readonly rng: RandomSource;
  readonly state: M2State;
  readonly reason: string;

  constructor(trx: Kysely<DB>, m: GaussianMethodology, rng: RandomSource, state: M2State, reason: string) {
    this.trx = trx;
    this.m = m;
    this.rng = rng;
    this.state = state;
    this.reason = reason;
    this.#guard = new RhoCapGuard(state.ledger, state.changers, m, state.recorded);
  }

  #add(cell: StoredCell, cadence: Cadence, charge: CellToInsert['charge']): void {
    (cadence === 'daily' ? this.state.daily : this.state.weekly).set(key(cell.sector, cell.periodEnd), cell);
    this.inserts.push({
      cell,
      cadence,
      charge,
      reason: this.reason,
      outcome: {
        sector: cell.sector,
        cadence,
        periodEnd: cell.periodEnd,
        status: 'published',
        cohortBand: cell.cohortBand,
        derivation: cell.derivation,
      },
    });
  }

  /** A noised cell again: the cohort as it is now, fresh noise, charged as a release of its own. */
  async renoise(sector: string, cadence: Cadence, periodEnd: string, previous: StoredCell): Promise<void> {
    const min = cadence === 'daily' ? this.m.dailyMinCohort : this.m.minCohort;
    const rows = await loadMemberCohortRows(this.trx, cadence, periodEnd, periodEnd, [sector]);
    const entities = groupRows(rows).get(key(sector, periodEnd)) ?? [];
    const start = periodStart(cadence, periodEnd);
    const belowMinimum = () =>
      publicationRefused(
        `the ${cadence} cell ${sector} ${periodEnd} cannot be corrected: its cohort is now below the minimum ` +
          `of ${min} brands`,
      );
    if (entities.length < min) throw belowMinimum();
    const admitted = this.#guard.admit(sector, cadence, start, periodEnd, entities, true);
    if (admitted.status === 'cap_exceeded')
      throw publicationRefused(
        `refused: correcting the ${cadence} cell ${sector} ${periodEnd} would take its entities to rho ` +
          `${admitted.rhoAfter.toFixed(4)} in a rolling ${ROLLING_WINDOW_DAYS} days, over the annual cap ` +
          `${this.m.annualRhoCap.numerator / this.m.annualRhoCap.denominator}; nothing was stored or charged`,
      );
    if (admitted.status !== 'ok') throw new Error(`unexpected admission ${admitted.status}`);
    const cell = perturbCellGaussian(admitted.entities, cadence, this.m, this.rng);
    if (!cell) throw belowMinimum();
    const vintage = (previous.vintage ?? 1) + 1;
    const charge = this.#guard.record(sector, cadence, start, periodEnd, admitted.entities, vintage);
    this.#add({ ...cell, sector, periodEnd, derivation: 'noised', vintage }, cadence, charge);
  }

  /** The week's weekly cell derived again from its seven (latest) daily cells: no privacy cost. */
  rederiveWeekly(sector: string, week: string, previous: StoredCell): void {
    const dailies = Array.from({ length: 7 }, (_, i) =>
      this.state.daily.get(key(sector, addDays(week, i - 6))),
    );
    if (dailies.some((c) => c === undefined))
      throw new Error(`weekly cell ${sector} ${week} is derived but a daily cell of its week is missing`);
    const cell = deriveWeeklyFromDaily(dailies as StoredCell[], this.m);
    const vintage = (previous.vintage ?? 1) + 1;
    this.#add({ ...cell, sector, periodEnd: week, derivation: 'daily', vintage }, 'weekly', null);
  }

  /** The week's headline derived again from the latest non-exclusive sector cells: no privacy cost. */
  rederiveHeadline(week: string, allSectors: readonly string[], previous: StoredCell): void {
    const parts = allSectors
      .filter((s) => !this.state.exclusive.has(s))
      .map((s) => this.state.weekly.get(key(s, week)))
      .filter((c): c is StoredCell => c !== undefined);
    const cell = deriveHeadline(parts, this.m);
    if (!cell)
      throw publicationRefused(
        `the headline of ${week} cannot be derived again: no sector cell of that week may be part of it now`,
      );
    const vintage = (previous.vintage ?? 1) + 1;
    this.#add({ ...cell, sector: HEADLINE, periodEnd: week, derivation: 'sectors', vintage }, 'weekly', null);
  }
}
