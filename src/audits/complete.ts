import { benchmarkIndustryOf } from '../workspaces/queries.ts';
import type { AppContext } from '../context.ts';
import { emitEvent } from '../webhooks/emit.ts';
import {
  computeDailyScores,
  CURRENT_FORMULA,
  DAILY_WINDOW_DAYS,
  dailyRowOf,
  scoreCurrent,
  scoreInputFrom,
  storedGradesBefore,
  indexRows,
  writeDailyScores,
  type CurrentScore,
} from '../scoring/daily-scores.ts';
import {
  signedDelta,
  type CompositeGrade,
  type CrisisSignal,
  type Interval,
  type PillarGrade,
  type Recommendation,
} from '../scoring/engine/index.ts';
import {
  crisisData,
  isScoreChange,
  scoreChangedData,
  type ComparableScore,
} from '../scoring/score-change.ts';
import { loadSnapshotsForScoring } from '../scoring/snapshots.ts';
import { storedDrivers } from '../scoring/explanations.ts';
import { industryBenchmark } from './benchmark.ts';
import { latestCompletedAudit } from './latest.ts';
import { utcDay } from '../core/days.ts';
import { type Pillar, type PillarScores, PILLARS, type Platform } from '../core/catalog.ts';

/** A pillar as stored on the audit: the API fields plus the one-decimal value the next audit's change is measured from. */
export interface StoredPillar {
  score: number;
  change: string;
  grade: PillarGrade;
  value: number;
  /** Formula v2: the pillar's 90% interval (absent on v1 audits). */
  interval?: Interval;
}
export type StoredPillars = Record<Pillar, StoredPillar>;

/** A failure that retrying cannot fix: the audit ends `failed` at once. */
export class AuditFailure extends Error {}

export type CompletionOutcome = 'completed' | 'already-finished';

export interface CompleteOptions {
  /** Completion instant (default ctx.now()); the sandbox back-dates audits with it. */
  now?: Date;
  /** Emit audit.completed / score.changed and evaluate the alerts (default true). */
  emitEvents?: boolean;
}

export function pillarsFrom(result: CurrentScore, previous: StoredPillars | null): StoredPillars {
  const out = {} as StoredPillars;
  for (const k of PILLARS) {
    const value = result.pillars[k];
    const before = previous?.[k]?.value;
    out[k] = {
      score: Math.round(value),
      // The first audit has no baseline: its change is +0.0.
      change: typeof before === 'number' ? signedDelta(value, before) : '+0.0',
      grade: result.pillarGrades[k],
      value,
      interval: result.pillarIntervals[k],
    };
  }
  return out;
}

/**
 * Scores a processing audit and records the result. Reads happen first; then ONE transaction
 * marks the audit completed (guarded by status = 'processing', so a retried or duplicated job
 * completes it at most once), appends its score_log rows (UNIQUE(audit_id, platform)), upserts
 * the day's stored score and emits the events. Throws AuditFailure when there is nothing to score.
 */
export async function completeAudit(
  ctx: AppContext,
  auditId: string,
  options: CompleteOptions = {},
): Promise<CompletionOutcome> {
  const { db } = ctx;
  // The audit and its workspace's sector in one round trip.
  const audit = await db
    .selectFrom('audits')
    .innerJoin('workspaces', 'workspaces.id', 'audits.workspace_id')
    .selectAll('audits')
    .select('workspaces.sector_slug')
    .where('audits.id', '=', auditId)
    .executeTakeFirst();
  if (!audit || audit.status !== 'processing') return 'already-finished';
  const ws = { id: audit.workspace_id, sector_slug: audit.sector_slug };

  const now = options.now ?? ctx.now();
  const asOf = utcDay(now);
  // What the audit's window and the day's stored score (the daily window) each read.
  const snapshots = await loadSnapshotsForScoring(db, ws.id, {
    from: scoreInputFrom(asOf, Math.max(audit.lookback_days, DAILY_WINDOW_DAYS)),
    to: asOf,
  });
  // Independent reads: in flight together on PostgreSQL (PGlite runs them one after the other).
  const [previous, dailyGrades, industry] = await Promise.all([
    // The score this one follows: the current score's audit (this one is still processing).
    db
      .selectFrom('workspaces')
      .innerJoinLateral(
        (eb) =>
          latestCompletedAudit(eb)
            .select([
              'audits.score',
              'audits.grade',
              'audits.pillars',
              'audits.formula_version',
              'audits.lookback_days',
              'audits.score_low',
              'audits.score_high',
              'audits.crisis',
              'audits.drivers',
            ])
            .as('previous'),
        (join) => join.onTrue(),
      )
      .selectAll('previous')
      .where('workspaces.id', '=', ws.id)
      .executeTakeFirst(),
    storedGradesBefore(db, ws.id, asOf),
    benchmarkIndustryOf(db, ws.id),
  ]);
  const result = scoreCurrent({
    snapshots,
    platforms: audit.platforms as Platform[],
    asOf,
    lookbackDays: audit.lookback_days,
    today: asOf,
    industry,
    // Hysteresis against the previous audit's grade when it was scored the same way.
    previousGrade:
      previous?.formula_version === CURRENT_FORMULA && previous.lookback_days === audit.lookback_days
        ? (previous.grade as CompositeGrade | null)
        : null,
  });
  if (result.coverage === 0) {
    throw new AuditFailure(
      `No metric data for ${audit.platforms.join(', ')} in the ${audit.lookback_days} days up to ${asOf}; ` +
        'sync or import metrics, then run the audit again. No audit was counted.',
    );
  }

  const benchmark = await industryBenchmark(db, ws, result.score, asOf);
  // Pillar changes are measured against the previous audit of the same formula only.
  const sameFormula = previous?.formula_version === result.formulaVersion;
  const pillars = pillarsFrom(result, sameFormula ? ((previous?.pillars as StoredPillars) ?? null) : null);
  const recommendations: Recommendation[] = result.recommendations;
  // With the daily definition (90 days, every platform with data) the audit's score is the day's stored
  // score: reuse it rather than scoring the window again.
  const withData = new Set(snapshots.map((x) => x.platform));
  const daily =
    audit.lookback_days === DAILY_WINDOW_DAYS &&
    withData.size === audit.platforms.length &&
    audit.platforms.every((p) => withData.has(p as Platform))
      ? [
          dailyRowOf(ws.id, result, dailyGrades.previousGrade ?? null),
          ...indexRows(ws.id, snapshots, asOf, asOf, dailyGrades.previousIndexGrade ?? null),
        ]
      : computeDailyScores(ws.id, snapshots, asOf, asOf, { ...dailyGrades, industry });

  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('audits')
      .set({
        status: 'completed',
        completed_at: now,
        score: result.score,
        grade: result.grade,
        pillars: JSON.stringify(pillars),
        recommendations: JSON.stringify(recommendations),
        industry_benchmark: JSON.stringify(benchmark),
        formula_version: result.formulaVersion,
        score_low: result.scoreInterval.low,
        score_high: result.scoreInterval.high,
        stale: result.stale,
        latest_data_day: result.latestDataDay,
        authenticity_flags: JSON.stringify(result.authenticityFlags),
        crisis: JSON.stringify(result.crisis),
        baseline_version: result.baselineVersion,
        drivers: JSON.stringify(result.drivers),
      })
      .where('id', '=', audit.id)
      .where('status', '=', 'processing')
      .returning('id')
      .executeTakeFirst();
    if (!updated) return 'already-finished' as const;

    if (result.platforms.length) {
      await trx
        .insertInto('score_log')
        .values(
          result.platforms.map((row) => ({
            workspace_id: ws.id,
            audit_id: audit.id,
            platform: row.platform,
            tier: row.tier,
            follower_count: row.followerCount,
            overall_score: row.overallScore,
            grade: row.grade,
            part1_score: row.part1Score,
            part2_score: row.part2Score,
            formula_version: result.formulaVersion,
            recorded_at: now,
          })),
        )
        .onConflict((oc) => oc.columns(['audit_id', 'platform']).doNothing())
        .execute();
    }
    await writeDailyScores(trx, daily);

    if (options.emitEvents !== false) {
      const completedAt = now.toISOString();
      await emitEvent(ctx, trx, {
        workspaceId: ws.id,
        type: 'audit.completed',
        data: {
          audit_id: audit.id,
          workspace_id: ws.id,
          score: result.score,
          grade: result.grade,
          completed_at: completedAt,
        },
        ...(audit.webhook_url
          ? {
              extra: [
                {
                  url: audit.webhook_url,
                  secret:
                    audit.webhook_secret !== null && audit.webhook_secret_key_id !== null
                      ? { ciphertext: audit.webhook_secret, keyId: audit.webhook_secret_key_id }
                      : null,
                  auditId: audit.id,
                },
              ],
            }
          : {}),
      });
      const before: ComparableScore | null =
        previous && previous.score !== null
          ? {
              score: previous.score,
              grade: previous.grade,
              formulaVersion: previous.formula_version ?? '',
              interval:
                previous.score_low !== null && previous.score_high !== null
                  ? { low: previous.score_low, high: previous.score_high }
                  : null,
              crisis: (previous.crisis as CrisisSignal | null) ?? null,
              drivers: storedDrivers(previous.drivers),
            }
          : null;
      const next: ComparableScore = {
        score: result.score,
        grade: result.grade,
        formulaVersion: result.formulaVersion,
        interval: result.scoreInterval,
        crisis: result.crisis,
        drivers: result.drivers,
      };
      if (before && isScoreChange(next, before)) {
        await emitEvent(ctx, trx, {
          workspaceId: ws.id,
          type: 'score.changed',
          data: scoreChangedData({
            workspaceId: ws.id,
            before,
            after: next,
            changedAt: now,
            cause: { auditId: audit.id },
          }),
        });
      }
      const previousPillars = sameFormula ? ((previous?.pillars as StoredPillars | null) ?? null) : null;
      await ctx.workspaceChanged(trx, {
        workspaceId: ws.id,
        change: {
          score: result.score,
          previous_score: before && before.formulaVersion === next.formulaVersion ? before.score : null,
          grade: result.grade,
          previous_grade:
            before && before.formulaVersion === next.formulaVersion
              ? ((before.grade as CompositeGrade | null) ?? null)
              : null,
          pillars: { ...result.pillars },
          previous_pillars:
            previousPillars && PILLARS.every((k) => typeof previousPillars[k]?.value === 'number')
              ? (Object.fromEntries(PILLARS.map((k) => [k, previousPillars[k].value])) as PillarScores)
              : null,
          changed_at: now.toISOString(),
          audit_id: audit.id,
          crisis: crisisData(result.crisis),
        },
      });
    }
    return 'completed' as const;
  });
}

/** Ends a processing audit as failed (no-op when it already finished). Failed audits use no quota. */
export async function failAudit(
  ctx: AppContext,
  auditId: string,
  reason: string,
  at = ctx.now(),
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('audits')
    .set({ status: 'failed', failure_reason: reason, completed_at: at })
    .where('id', '=', auditId)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
