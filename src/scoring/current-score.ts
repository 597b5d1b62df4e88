import { CompiledQuery } from 'kysely';
import type { Static } from 'typebox';
import type { Score } from './schemas.ts';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { DomainError } from '../core/errors.ts';
import { workspaceNotFound } from '../workspaces/tenancy.ts';
import {
  DEFAULT_LOOKBACK_DAYS,
  scoreWorkspaceV2,
  STALE_AFTER_DAYS,
  type AuthenticityFlag,
  type Interval,
} from './engine/index.ts';
import { storedGradeBefore } from './daily-scores.ts';
import { loadSnapshotsForScoring } from './snapshots.ts';
import { addDays, daysBetween, utcDay } from '../core/days.ts';
import { type Pillar, PILLARS, type PillarScores, type Plan, planAtLeast } from '../core/catalog.ts';
import type { CompositeGrade } from './engine/types.ts';
import { connectedPlatforms } from '../platforms/queries.ts';

/** GET /v1/score's answer: the route's response schema, so the two cannot drift. */
export type ScoreView = Static<typeof Score>;

/** What both sources give: the score and, under formula v2, its extension fields. */
interface FoundScore {
  score: number;
  pillars: PillarScores;
  grade: string;
  version: string;
  at: Date;
  v2?: {
    interval: Interval;
    pillar_intervals?: Record<Pillar, Interval>;
    stale: boolean;
    latest_data_day: string | null;
    authenticity_flags: AuthenticityFlag[];
  };
}

/** Live score from the current snapshots: the default audit window over the connected platforms. */
async function liveScore(ctx: AppContext, workspaceId: string): Promise<FoundScore | null> {
  const now = ctx.now();
  const asOf = utcDay(now);
  const [platforms, previousGrade] = await Promise.all([
    connectedPlatforms(ctx.db, workspaceId),
    storedGradeBefore(ctx.db, workspaceId, asOf),
  ]);
  const snapshots = await loadSnapshotsForScoring(ctx.db, workspaceId, {
    from: addDays(asOf, -(DEFAULT_LOOKBACK_DAYS - 1)),
    to: asOf,
    ...(platforms.length ? { platforms } : {}),
  });
  const result = scoreWorkspaceV2({
    snapshots,
    platforms,
    asOf,
    today: asOf,
    lookbackDays: DEFAULT_LOOKBACK_DAYS,
    // Hysteresis against the stored daily grade (the history's last point) rather than flickering per request.
    previousGrade,
  });
  if (result.coverage === 0) return null;
  return {
    score: result.score,
    pillars: result.pillars,
    grade: result.grade,
    version: result.formulaVersion,
    at: now,
    v2: {
      interval: result.scoreInterval,
      pillar_intervals: result.pillarIntervals,
      stale: result.stale,
      latest_data_day: result.latestDataDay,
      authenticity_flags: result.authenticityFlags,
    },
  };
}

interface ScoreRow {
  id: string;
  plan: string;
  realtime_scoring: boolean;
  score: number | null;
  grade: string | null;
  pillars: unknown;
  formula_version: string | null;
  completed_at: Date | null;
  score_low: number | null;
  score_high: number | null;
  stale: boolean | null;
  latest_data_day: string | null;
  authenticity_flags: unknown;
}

/**
 * The workspace inside the tenant boundary (visibleTo: the key owner or a child of it) and its
 * latest completed audit whose creator still manages it, in one round trip. No row: the workspace is not visible; a row with a
 * null completed_at: visible but never audited. Static text, so nothing is built per request.
 */
const SCORE_QUERY = `
  SELECT w.id, w.plan, w.realtime_scoring,
         a.score, a.grade, a.pillars, a.formula_version, a.completed_at,
         a.score_low, a.score_high, a.stale, a.latest_data_day::text AS latest_data_day, a.authenticity_flags
  FROM workspaces w
  LEFT JOIN LATERAL (
    SELECT score, grade, pillars, formula_version, completed_at,
           score_low, score_high, stale, latest_data_day, authenticity_flags
    FROM audits
    WHERE workspace_id = w.id AND status = 'completed'
      -- currentlyManaged (src/workspaces/tenancy.ts): not an audit the client's old agency ran.
      AND (created_by IS NULL OR created_by = w.id OR created_by = w.parent_id)
    ORDER BY completed_at DESC, id DESC
    LIMIT 1
  ) a ON true
  WHERE w.id = $1 AND (w.id = $2 OR w.parent_id = $2)`;

async function workspaceWithLatestAudit(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string,
): Promise<ScoreRow | undefined> {
  const result = await ctx.db.executeQuery<ScoreRow>(
    CompiledQuery.raw(SCORE_QUERY, [workspaceId, principal.workspaceId]),
  );
  return result.rows[0];
}

/**
 * The latest audit's score. `stale` is judged against `today`, not the audit's day: this endpoint
 * answers "the current score", and an audit whose data is now old is stale data.
 */
function auditScore(row: ScoreRow, today: string): FoundScore | null {
  if (row.completed_at === null) return null;
  const stored = row.pillars as Record<string, { value: number; interval?: Interval }>;
  const pillars = {} as PillarScores;
  const intervals = {} as Record<Pillar, Interval>;
  for (const k of PILLARS) {
    pillars[k] = stored[k]!.value;
    if (stored[k]!.interval) intervals[k] = stored[k]!.interval!;
  }
  return {
    score: row.score!,
    pillars,
    grade: row.grade ?? '',
    version: row.formula_version ?? '',
    at: row.completed_at,
    ...(row.score_low !== null && row.score_high !== null
      ? {
          v2: {
            interval: { low: row.score_low, high: row.score_high },
            ...(Object.keys(intervals).length === PILLARS.length ? { pillar_intervals: intervals } : {}),
            stale: row.latest_data_day === null || daysBetween(row.latest_data_day, today) > STALE_AFTER_DAYS,
            latest_data_day: row.latest_data_day,
            authenticity_flags: (row.authenticity_flags as AuthenticityFlag[] | null) ?? [],
          },
        }
      : {}),
  };
}

/**
 * The workspace's Brand Credit Score: the latest completed audit, or, when the key owner is on
 * Agency or above and the workspace has real-time scoring on, a live calculation from the current
 * snapshots (falling back to the latest audit when there are none). 404 No Score Available otherwise.
 */
export async function currentScore(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string | undefined,
  includePillars: boolean,
): Promise<ScoreView> {
  const id = workspaceId ?? principal.workspaceId;
  const ws = await workspaceWithLatestAudit(ctx, principal, id);
  // Same answer as resolveWorkspace (src/workspaces/tenancy.ts): invisible means not found.
  if (!ws) throw workspaceNotFound(id);
  const realtime = ws.realtime_scoring && planAtLeast(principal.plan, 'agency');
  const live = realtime ? await liveScore(ctx, ws.id) : null;
  const found = live ?? auditScore(ws, utcDay(ctx.now()));
  if (!found) {
    throw new DomainError(
      'no_score_available',
      `Workspace ${ws.id} has no score yet: run an audit with POST /v1/audit/run first.`,
    );
  }
  return {
    score: found.score,
    ...(includePillars ? { pillars: found.pillars } : {}),
    // Stored by the scoring engine, which only writes composite grades.
    grade: found.grade as CompositeGrade,
    formula_version: found.version,
    calculated_at: found.at.toISOString(),
    workspace_id: ws.id,
    tier: ws.plan as Plan,
    source: live ? 'realtime' : 'audit',
    ...(found.v2
      ? {
          interval: found.v2.interval,
          ...(includePillars && found.v2.pillar_intervals
            ? { pillar_intervals: found.v2.pillar_intervals }
            : {}),
          stale: found.v2.stale,
          latest_data_day: found.v2.latest_data_day,
          authenticity_flags: found.v2.authenticity_flags,
        }
      : {}),
  };
}
