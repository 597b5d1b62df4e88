// The TACSI publisher: turns daily brand scores into perturbed, immutable cells.
//
// Periods ending on or after the cut-over (TACSI_M2_FROM) are published under tacsi-m2 by
// publish-m2.ts; earlier ones under tacsi-m1, as below, unchanged.
//
// tacsi-m1: for each requested period and scope (a consumer sector, or the all-consumer headline) it builds
// the cohort (one row per consumer brand workspace with a score in the period), refuses cohorts below
// the methodology's minimum, checks the annual cap on the ledger, perturbs the cell once with the
// cryptographic random source, and stores the cell with its ledger row in the same transaction. A
// cell that already exists is never perturbed again: it is skipped before any random draw.
import type { AppContext } from '../context.ts';
import { DEFAULT_TACSI_M2_FROM } from '../infra/config.ts';
import { CapGuard } from './cap-guard.ts';
import { HEADLINE, consumerSectors, loadCohortRows } from './cohorts.ts';
import { notePublication } from './feed-cache.ts';
import { snapToGrid } from './feeds.ts';
import { isPeriodEnd, lastCompletedPeriodEnd, trailingPeriodEnds } from './periods.ts';
import {
  cellsOfOtherMethodologies,
  loadPublicationState,
  lockAndListSectors,
  storeCells,
  type CellToStore,
  type TimelinePoint,
} from './publication-store.ts';
import {
  CURRENT_METHODOLOGY_VERSION,
  assertPublicationRandomSource,
  cellCharge,
  cryptoRandomSource,
  getMethodology,
  perturbCell,
  type Cadence,
  type EntityScores,
  TACSI_M2,
  type GaussianMethodology,
  type Methodology,
  type RandomSource,
} from './privacy/index.ts';
import { publicationRefused, type PublicationOutcome } from './outcome.ts';
import { fixCutOver, lockPublications } from './ledger-store.ts';
import { publishM2 } from './publish-m2.ts';
import { utcDay } from '../core/days.ts';

export type { PublicationOutcome, PublicationStatus } from './outcome.ts';

export interface PublishOptions {
  /** Parameters of the methodology of the periods it covers (tests); the cut-over still decides which. */
  methodology?: Methodology | GaussianMethodology;
  /**
   * The tacsi-m2 cut-over to fix at the first publication (default: the TACSI_M2_FROM setting, else
   * DEFAULT_TACSI_M2_FROM); once fixed, a different value is refused.
   */
  m2From?: string;
  /** Must be the cryptographic source (the default); a seeded one is refused. */
  rng?: RandomSource;
  /** Where refusals are reported (default console.warn). */
  log?: (message: string) => void;
}

export interface PublishRequest extends PublishOptions {
  cadence: Cadence;
  periodEnds: readonly string[];
  /** Consumer sector slugs, or 'headline'; null (the default) means every consumer sector and the headline. */
  sectors?: readonly string[] | null;
}

type Ctx = Pick<AppContext, 'db' | 'now' | 'state'> & { config?: Pick<AppContext['config'], 'tacsiM2From'> };

const isGaussian = (m: Methodology | GaussianMethodology): m is GaussianMethodology =>
  'mechanism' in m && m.mechanism === 'discrete-gaussian';

interface PendingCell extends CellToStore {
  outcome: PublicationOutcome;
}

/** The cut-over of a context: periods ending on or after it are tacsi-m2. */
export function m2CutOver(ctx: Ctx, options: PublishOptions = {}): string {
  return options.m2From ?? ctx.config?.tacsiM2From ?? DEFAULT_TACSI_M2_FROM;
}

/** Publish the requested cells; returns one outcome per (period, scope), oldest period first. */
export async function publishCells(ctx: Ctx, request: PublishRequest): Promise<PublicationOutcome[]> {
  const rng = request.rng ?? cryptoRandomSource();
  assertPublicationRandomSource(rng);
  const { cadence } = request;
  const today = utcDay(ctx.now());
  const periodEnds = [...new Set(request.periodEnds)].sort();
  for (const end of periodEnds) {
    if (!isPeriodEnd(cadence, end)) {
      throw publicationRefused(
        cadence === 'weekly'
          ? `${end} is not a Sunday (weekly periods end on Sundays)`
          : `${end} is not a date`,
        'period_end',
      );
    }
    if (end >= today)
      throw publicationRefused(`the ${cadence} period ending ${end} is not over yet`, 'period_end');
  }
  if (periodEnds.length === 0) return [];
  const log = request.log ?? ((message: string) => console.warn(message));
  // Every cell of this request carries the same publication instant (never the time of its own draw).
  const publishedAt = ctx.now();
  // The cut-over is fixed by the first publication; a different configured value is refused.
  const cut = await ctx.db.transaction().execute(async (trx) => {
    await lockPublications(trx);
    const configured = m2CutOver(ctx, request);
    return fixCutOver(trx, configured, request.m2From === undefined && configured === DEFAULT_TACSI_M2_FROM);
  });
  // `methodology` replaces the parameters of the methodology a period falls under; it never moves a
  // period across the cut-over.
  const forced = request.methodology;
  const m2 = forced && isGaussian(forced) ? forced : TACSI_M2;
  const m1 = forced && !isGaussian(forced) ? forced : getMethodology(CURRENT_METHODOLOGY_VERSION);
  const m2Ends = periodEnds.filter((e) => e >= cut);
  const m1Ends = periodEnds.filter((e) => e < cut);
  const outcomes: PublicationOutcome[] = [];
  if (m1Ends.length > 0 && today >= cut) {
    // tacsi-m1 is closed from the cut-over day on, whatever the path: its archive is final.
    const scopes = resolveScopes(request.sectors ?? null, await consumerSectors(ctx.db));
    for (const periodEnd of m1Ends)
      for (const sector of scopes) outcomes.push({ sector, cadence, periodEnd, status: 'closed' });
  } else if (m1Ends.length > 0) {
    if (!m1.cadences.includes(cadence)) {
      throw publicationRefused(`methodology ${m1.version} has no ${cadence} cells`);
    }
    outcomes.push(...(await publishM1(ctx, request, m1, m1Ends, rng, log, publishedAt)));
  }
  if (m2Ends.length > 0) {
    const published = await ctx.db.transaction().execute(async (trx) => {
      const allSectors = await lockAndListSectors(trx);
      const scopes = resolveScopes(request.sectors ?? null, allSectors);
      return publishM2(trx, {
        cadence,
        periodEnds: m2Ends,
        scopes,
        allSectors,
        m: m2,
        rng,
        log,
        firstDay: cut,
        today,
        publishedAt,
      });
    });
    if (published.some((o) => o.status === 'published')) notePublication(ctx);
    outcomes.push(...published);
  }
  return sortOutcomes(outcomes);
}

async function publishM1(
  ctx: Ctx,
  request: PublishRequest,
  methodology: Methodology,
  periodEnds: readonly string[],
  rng: RandomSource,
  log: (message: string) => void,
  publishedAt: Date,
): Promise<PublicationOutcome[]> {
  const { cadence } = request;
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const allSectors = await lockAndListSectors(trx);
    const scopes = resolveScopes(request.sectors ?? null, allSectors);
    const { timelines, ledger } = await loadPublicationState(
      trx,
      cadence,
      methodology,
      scopes,
      periodEnds[0]!,
      periodEnds[periodEnds.length - 1]!,
    );

    const outcomes: PublicationOutcome[] = [];
    const todo: Array<{ periodEnd: string; scope: string }> = [];
    // A period published under another methodology is never released again.
    const taken = await cellsOfOtherMethodologies(trx, cadence, methodology.version, periodEnds);
    for (const periodEnd of periodEnds) {
      for (const scope of scopes) {
        const exists = timelines.get(scope)!.some((c) => c.periodEnd === periodEnd);
        if (exists) outcomes.push({ sector: scope, cadence, periodEnd, status: 'exists' });
        else if (taken.has(`${scope}|${periodEnd}`))
          outcomes.push({ sector: scope, cadence, periodEnd, status: 'already_charged' });
        else todo.push({ periodEnd, scope });
      }
    }
    if (todo.length === 0) return { outcomes: sortOutcomes(outcomes), published: 0 };

    const first = todo[0]!.periodEnd;
    const last = todo[todo.length - 1]!.periodEnd;
    const needsHeadline = todo.some((t) => t.scope === HEADLINE);
    const cohortSectors = needsHeadline ? allSectors : [...new Set(todo.map((t) => t.scope))];
    const cohorts = groupCohorts(await loadCohortRows(trx, cadence, first, last, cohortSectors));
    const guard = new CapGuard(ledger);

    const pending: PendingCell[] = [];
    for (const { periodEnd, scope } of todo) {
      const bySector = cohorts.get(periodEnd) ?? new Map<string, EntityScores[]>();
      const entities = scope === HEADLINE ? [...bySector.values()].flat() : (bySector.get(scope) ?? []);
      const base = { sector: scope, cadence, periodEnd };
      if (entities.length < methodology.minCohort) {
        outcomes.push({ ...base, status: 'below_min_cohort' });
        continue;
      }
      const charge = cellCharge(scope, cadence, periodEnd, methodology);
      const members =
        scope === HEADLINE ? [...bySector.keys()].filter((s) => bySector.get(s)!.length > 0) : [scope];
      const decision = guard.check(charge, members, methodology);
      if (decision.alreadyCharged) {
        outcomes.push({ ...base, status: 'already_charged' });
        continue;
      }
      if (!decision.allowed) {
        log(
          `tacsi: refused ${cadence} cell ${scope} ${periodEnd}: entities of ${decision.limitingSector} would reach ` +
            `epsilon ${decision.epsilonAfter} in a rolling 365 days, over the annual cap ${decision.cap}`,
        );
        outcomes.push({ ...base, status: 'cap_exceeded' });
        continue;
      }
      const cell = perturbCell(entities, methodology, rng);
      if (!cell) {
        outcomes.push({ ...base, status: 'below_min_cohort' });
        continue;
      }
      const timeline = timelines.get(scope)!;
      const previous = previousCell(timeline, periodEnd);
      const delta = previous === null ? null : snapToGrid(cell.indexValue - previous.indexValue, methodology);
      insertSorted(timeline, { periodEnd, indexValue: cell.indexValue });
      guard.record(charge);
      const result: PublicationOutcome = { ...base, status: 'published', cohortBand: cell.cohortBand };
      outcomes.push(result);
      pending.push({
        sector: scope,
        periodEnd,
        indexValue: cell.indexValue,
        delta,
        pillars: { ...cell.pillars },
        cohortBand: cell.cohortBand,
        entities: entities.map((e) => e.entityId),
        outcome: result,
      });
    }
    const stored = await storeCells(trx, cadence, methodology, pending, publishedAt);
    // A cell a concurrent publisher stored first was not inserted: report what is there.
    for (const c of pending) if (!stored.has(`${c.sector}|${c.periodEnd}`)) c.outcome.status = 'exists';
    return { outcomes: sortOutcomes(outcomes), published: stored.size };
  });
  if (outcome.published > 0) notePublication(ctx);
  return outcome.outcomes;
}

function resolveScopes(requested: readonly string[] | null, allSectors: readonly string[]): string[] {
  if (requested === null) return [...allSectors, HEADLINE];
  const known = new Set(allSectors);
  const scopes: string[] = [];
  for (const s of new Set(requested)) {
    if (s !== HEADLINE && !known.has(s)) throw publicationRefused(`${s} is not a consumer sector`, 'sector');
    scopes.push(s);
  }
  return scopes.sort((a, b) => (a === HEADLINE ? 1 : b === HEADLINE ? -1 : a.localeCompare(b)));
}

/** The latest published point strictly before `periodEnd`, or null. */
function previousCell(timeline: readonly TimelinePoint[], periodEnd: string): TimelinePoint | null {
  let found: TimelinePoint | null = null;
  for (const p of timeline) {
    if (p.periodEnd >= periodEnd) break;
    found = p;
  }
  return found;
}

function insertSorted(timeline: TimelinePoint[], point: TimelinePoint): void {
  const at = timeline.findIndex((p) => p.periodEnd > point.periodEnd);
  if (at === -1) timeline.push(point);
  else timeline.splice(at, 0, point);
}

function groupCohorts(
  rows: Awaited<ReturnType<typeof loadCohortRows>>,
): Map<string, Map<string, EntityScores[]>> {
  const byPeriod = new Map<string, Map<string, EntityScores[]>>();
  for (const row of rows) {
    let bySector = byPeriod.get(row.periodEnd);
    if (!bySector) byPeriod.set(row.periodEnd, (bySector = new Map()));
    const list = bySector.get(row.sector);
    if (list) list.push(row.entity);
    else bySector.set(row.sector, [row.entity]);
  }
  return byPeriod;
}

function sortOutcomes(outcomes: PublicationOutcome[]): PublicationOutcome[] {
  const rank = (s: string) => (s === HEADLINE ? '\uffff' : s);
  return outcomes.sort(
    (a, b) => a.periodEnd.localeCompare(b.periodEnd) || rank(a.sector).localeCompare(rank(b.sector)),
  );
}

/** Publish one period of the cadence for every consumer sector and the headline. */
export function publishPeriod(
  ctx: Ctx,
  cadence: Cadence,
  periodEnd: string,
  options: PublishOptions = {},
): Promise<PublicationOutcome[]> {
  return publishCells(ctx, { ...options, cadence, periodEnds: [periodEnd] });
}

/** The benchmark hook: one weekly period (ending on a Sunday) over every consumer sector and the headline. */
export function publishWeeklyPeriod(
  ctx: Ctx,
  periodEnd: string,
  options: PublishOptions = {},
): Promise<PublicationOutcome[]> {
  return publishPeriod(ctx, 'weekly', periodEnd, options);
}

export interface BackfillRequest extends PublishOptions {
  /** Completed weeks to cover, ending with the last completed one (default 104). */
  weeks?: number;
  /** Completed days to cover, ending yesterday (default 60). */
  days?: number;
  /** One consumer sector (or 'headline'); default every consumer sector and the headline. */
  sector?: string | null;
  /** The last period end to cover, for data that stops earlier than yesterday (default: the last completed). */
  through?: string;
}

/** The weekly archive and recent daily cells: each cadence in one batched pass. Idempotent. */
export async function backfill(ctx: Ctx, request: BackfillRequest = {}): Promise<PublicationOutcome[]> {
  const today = utcDay(ctx.now());
  const weeks = request.weeks ?? 104;
  const days = request.days ?? 60;
  const sectors = request.sector ? [request.sector] : null;
  const outcomes: PublicationOutcome[] = [];
  for (const [cadence, count] of [
    ['weekly', weeks],
    ['daily', days],
  ] as const) {
    if (count <= 0) continue;
    let last = lastCompletedPeriodEnd(cadence, today);
    if (request.through && request.through < last) last = request.through;
    outcomes.push(
      ...(await publishCells(ctx, {
        ...request,
        cadence,
        sectors,
        periodEnds: trailingPeriodEnds(cadence, last, count),
      })),
    );
  }
  return outcomes;
}
