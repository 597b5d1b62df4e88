import { benchmarkIndustryOf } from '../workspaces/queries.ts';
import type { Kysely, Transaction } from 'kysely';
import type { Static } from 'typebox';
import type { Score } from '../scoring/schemas.ts';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import type { DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import { visibleTo, workspaceNotFound } from '../workspaces/tenancy.ts';
import { latestCompletedAudit } from '../audits/latest.ts';
import {
  DEFAULT_LOOKBACK_DAYS,
  STALE_AFTER_DAYS,
  type AuthenticityFlagV3 as AuthenticityFlag,
  type Interval,
} from '../scoring/engine/index.ts';
import { scoreCurrent, scoreInputFrom, storedGradeBefore } from '../scoring/daily-scores.ts';
import { v3ScoreFields } from '../scoring/v3-fields.ts';
import { loadSnapshotsForScoring } from '../scoring/snapshots.ts';
import { daysBetween, utcDay } from '../core/days.ts';
import { type Pillar, PILLARS, type PillarScores, type Plan, planAtLeast } from '../core/catalog.ts';
import type { CompositeGrade } from '../scoring/engine/types.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import { GRADING, gradeRange } from '../scoring/grading.ts';

/** GET /v1/score's answer: the route's response schema, so the two cannot drift. */
export type ScoreView = Static<typeof Score>;

/** What both sources give: the score and, under formula v2, its extension fields. */
interface FoundScore {
  score: number;
  /** Read only for a response that shows them. */
  pillars: () => PillarScores;
  grade: string;
  version: string;
  at: Date;
  v2?: {
    interval: Interval;
    pillar_intervals?: Record<Pillar, Interval>;
    stale: boolean;
    latest_data_day: string | null;
    authenticity_flags: AuthenticityFlag[];
    lookback_days: number;
  };
  /** Formula v3's crisis, baseline and drivers (v3ScoreFields). */
  v3?: ReturnType<typeof v3ScoreFields>;
}

type Db = Kysely<DB> | Transaction<DB>;

/** Live score from the snapshots as of `at`: the default audit window over the connected platforms. */
async function liveScore(db: Db, workspaceId: string, at: Date): Promise<FoundScore | null> {
  const asOf = utcDay(at);
  const [platforms, previousGrade, industry] = await Promise.all([
    connectedPlatforms(db, workspaceId),
    storedGradeBefore(db, workspaceId, asOf),
    benchmarkIndustryOf(db, workspaceId),
  ]);
  const snapshots = await loadSnapshotsForScoring(db, workspaceId, {
    from: scoreInputFrom(asOf, DEFAULT_LOOKBACK_DAYS),
    to: asOf,
    ...(platforms.length ? { platforms } : {}),
  });
  const result = scoreCurrent({
    snapshots,
    platforms,
    asOf,
    today: asOf,
    lookbackDays: DEFAULT_LOOKBACK_DAYS,
    industry,
    // Hysteresis against the stored daily grade (the history's last point) rather than flickering per request.
    previousGrade,
  });
  if (result.coverage === 0) return null;
  return {
    score: result.score,
    pillars: () => result.pillars,
    grade: result.grade,
    version: result.formulaVersion,
    at,
    v2: {
      interval: result.scoreInterval,
      pillar_intervals: result.pillarIntervals,
      stale: result.stale,
      latest_data_day: result.latestDataDay,
      authenticity_flags: result.authenticityFlags,
      lookback_days: DEFAULT_LOOKBACK_DAYS,
    },
    v3: v3ScoreFields(result.crisis, result.baselineVersion, result.drivers),
  };
}

/**
 * The workspace and its latest completed audit (latestCompletedAudit; with `asOf`, the latest
 * completed by then), in one round trip; with `visibleToOwner`, only inside that key owner's tenant
 * boundary (visibleTo). No row: the workspace does not exist or is not visible; a row with a null
 * completed_at: never audited.
 */
function workspaceWithLatestAudit(
  db: Db,
  workspaceId: string,
  asOf: Date | undefined,
  visibleToOwner: string | null,
) {
  let q = db
    .selectFrom('workspaces')
    .leftJoinLateral(
      (eb) =>
        latestCompletedAudit(eb, asOf)
          .select([
            'audits.score',
            'audits.grade',
            'audits.pillars',
            'audits.formula_version',
            'audits.completed_at',
            'audits.score_low',
            'audits.score_high',
            'audits.latest_data_day',
            'audits.authenticity_flags',
            'audits.crisis',
            'audits.baseline_version',
            'audits.lookback_days',
            'audits.drivers',
          ])
          .as('a'),
      (join) => join.onTrue(),
    )
    .select([
      'workspaces.id',
      'workspaces.plan',
      'workspaces.realtime_scoring',
      'a.score',
      'a.grade',
      'a.pillars',
      'a.formula_version',
      'a.completed_at',
      'a.score_low',
      'a.score_high',
      'a.latest_data_day',
      'a.authenticity_flags',
      'a.crisis',
      'a.baseline_version',
      'a.lookback_days',
      'a.drivers',
    ])
    .where('workspaces.id', '=', workspaceId);
  if (visibleToOwner !== null) q = q.where(visibleTo(visibleToOwner));
  return q.executeTakeFirst();
}
type ScoreRow = NonNullable<Awaited<ReturnType<typeof workspaceWithLatestAudit>>>;

/**
 * The latest audit's score. `stale` is judged against `today`, not the audit's day: this endpoint
 * answers "the current score", and an audit whose data is now old is stale data.
 */
function auditScore(row: ScoreRow, today: string): FoundScore | null {
  if (row.completed_at === null) return null;
  const stored = row.pillars as Record<Pillar, { value: number; interval?: Interval }>;
  const storedIntervals = () => {
    const intervals = {} as Record<Pillar, Interval>;
    for (const k of PILLARS) if (stored[k].interval) intervals[k] = stored[k].interval;
    return Object.keys(intervals).length === PILLARS.length ? { pillar_intervals: intervals } : {};
  };
  return {
    score: row.score!,
    pillars: () => Object.fromEntries(PILLARS.map((k) => [k, stored[k].value])) as PillarScores,
    grade: row.grade ?? '',
    version: row.formula_version ?? '',
    at: row.completed_at,
    ...(row.score_low !== null && row.score_high !== null
      ? {
          v2: {
            interval: { low: row.score_low, high: row.score_high },
            ...storedIntervals(),
            stale: row.latest_data_day === null || daysBetween(row.latest_data_day, today) > STALE_AFTER_DAYS,
            latest_data_day: row.latest_data_day,
            authenticity_flags: (row.authenticity_flags as AuthenticityFlag[] | null) ?? [],
            lookback_days: row.lookback_days!,
          },
        }
      : {}),
    v3: v3ScoreFields(row.crisis, row.baseline_version, row.drivers),
  };
}

/**
 * The one definition of a workspace's current score, as a reader on `readerPlan` sees it at `at`:
 * when the reader is on Agency or above and the workspace has real-time scoring on, the live
 * calculation from the snapshots (falling back to the audit when there are none); otherwise the
 * latest completed audit (latestCompletedAudit). docs/scoring.md "The current score".
 */
async function scoreOf(
  db: Db,
  ws: ScoreRow,
  readerPlan: Plan,
  at: Date,
): Promise<{ found: FoundScore; source: 'audit' | 'realtime' } | null> {
  const realtime = ws.realtime_scoring && planAtLeast(readerPlan, 'agency');
  const live = realtime ? await liveScore(db, ws.id, at) : null;
  if (live) return { found: live, source: 'realtime' };
  const audit = auditScore(ws, utcDay(at));
  return audit ? { found: audit, source: 'audit' } : null;
}

/** The workspace visible to the key, or 404 (the same answer as resolveWorkspace). */
async function visibleWorkspace(ctx: AppContext, principal: WorkspacePrincipal, id: string) {
  const ws = await workspaceWithLatestAudit(ctx.db, id, undefined, principal.workspaceId);
  if (!ws) throw workspaceNotFound(id);
  return ws;
}

/**
 * The workspace's Brand Credit Score (GET /v1/score): the current score (scoreOf) as the key
 * sees it now. 404 when the workspace is not visible; 404 No Score Available when it has none.
 */
export async function currentScore(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string | undefined,
  includePillars: boolean,
): Promise<ScoreView> {
  const id = workspaceId ?? principal.workspaceId;
  const now = ctx.now();
  const ws = await visibleWorkspace(ctx, principal, id);
  const current = await scoreOf(ctx.db, ws, principal.plan, now);
  if (!current) {
    throw new DomainError(
      'no_score_available',
      `Workspace ${ws.id} has no score yet: run an audit with POST /v1/audit/run first.`,
    );
  }
  const { found, source } = current;
  return {
    score: found.score,
    ...(includePillars ? { pillars: found.pillars() } : {}),
    // Stored by the scoring engine, which only writes composite grades.
    grade: found.grade as CompositeGrade,
    formula_version: found.version,
    calculated_at: found.at.toISOString(),
    workspace_id: ws.id,
    tier: ws.plan,
    source,
    ...(found.v2
      ? {
          interval: found.v2.interval,
          grade_range: gradeRange(found.v2.interval),
          ...(includePillars && found.v2.pillar_intervals
            ? { pillar_intervals: found.v2.pillar_intervals }
            : {}),
          stale: found.v2.stale,
          latest_data_day: found.v2.latest_data_day,
          authenticity_flags: found.v2.authenticity_flags,
          lookback_days: found.v2.lookback_days,
          grading: GRADING,
        }
      : {}),
    ...found.v3,
  };
}

/**
 * The current score's composite as the key sees it now (GET /v1/workspace current_core_score,
 * campaigns' score_current): the same value GET /v1/score answers, null where it answers 404 No
 * Score Available. 404 when the workspace is not visible.
 */
export async function currentCompositeScore(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string,
): Promise<number | null> {
  const now = ctx.now();
  const ws = await visibleWorkspace(ctx, principal, workspaceId);
  return (await scoreOf(ctx.db, ws, principal.plan, now))?.found.score ?? null;
}

/**
 * The current score's composite as of an earlier instant, as the reader workspace (a campaign's
 * creator) would have seen it then: the latest audit completed by `at`, or for a real-time
 * workspace the live calculation as of that day. Null when it had none (or the workspace is gone).
 * Runs on `db`, so it can read inside the caller's transaction.
 */
export async function compositeScoreAsOf(
  db: Db,
  workspaceId: string,
  readerWorkspaceId: string,
  at: Date,
): Promise<number | null> {
  const [ws, reader] = await Promise.all([
    workspaceWithLatestAudit(db, workspaceId, at, null),
    db.selectFrom('workspaces').select('plan').where('id', '=', readerWorkspaceId).executeTakeFirst(),
  ]);
  if (!ws) return null;
  return (await scoreOf(db, ws, reader?.plan ?? ws.plan, at))?.found.score ?? null;
}
