// Sandbox: publish the TACSI archive from the daily scores the scores extension wrote (it must run
// first), all of it under tacsi-m2: the sandbox sets its cut-over to the first scored day, before its
// archive. Every full ISO week of the score history becomes a weekly cell (derived from its daily
// cells in the 250-brand sector, which has the Daily add-on, noised directly elsewhere) and the days
// since the last full week become daily cells there; the small sector (fewer than 50 brands) stays
// unpublished by the cohort rule. Idempotent: a second run finds every cell published and draws nothing.
import { sql } from 'kysely';
import type { SandboxExtension } from '../domain-module.ts';
import { isSunday, lastCompletedPeriodEnd, periodEndsBetween, weekEndOf } from './periods.ts';
import { publishCells, type PublicationOutcome } from './publish.ts';
import { addDays, utcDay } from '../core/days.ts';

export const SANDBOX_DAILY_DAYS = 60;

export const tacsiSandbox: SandboxExtension = {
  name: 'tacsi',
  async run(ctx, manifest, log) {
    const extent = await sql<{ first: string | null; last: string | null }>`
      SELECT min(day) AS first, max(day) AS last FROM daily_scores
    `.execute(ctx.db);
    const { first, last } = extent.rows[0] ?? { first: null, last: null };
    if (!first || !last) {
      log('tacsi: no daily scores yet; nothing to publish');
      return;
    }
    const today = utcDay(ctx.now());
    const earliest = (a: string, b: string) => (a < b ? a : b);
    // Whole ISO weeks of the score history that are over: from the first week whose Monday has
    // scores to the last Sunday with scores.
    const weeklyFirst = weekEndOf(addDays(first, 6));
    const weeklyLast = earliest(
      lastCompletedPeriodEnd('weekly', today),
      isSunday(last) ? last : addDays(weekEndOf(last), -7),
    );
    const dailyLast = earliest(lastCompletedPeriodEnd('daily', today), last);
    const dailyStart = addDays(dailyLast, -(SANDBOX_DAILY_DAYS - 1));
    const dailyFirst = dailyStart < first ? first : dailyStart;

    const outcomes: PublicationOutcome[] = [];
    if (weeklyFirst <= weeklyLast) {
      outcomes.push(
        ...(await publishCells(ctx, {
          cadence: 'weekly',
          periodEnds: periodEndsBetween('weekly', weeklyFirst, weeklyLast),
          m2From: first,
          log,
        })),
      );
    }
    if (dailyFirst <= dailyLast) {
      outcomes.push(
        ...(await publishCells(ctx, {
          cadence: 'daily',
          periodEnds: periodEndsBetween('daily', dailyFirst, dailyLast),
          m2From: first,
          log,
        })),
      );
    }
    const count = (status: string) => outcomes.filter((o) => o.status === status).length;
    log(
      `tacsi: ${count('published')} tacsi-m2 cells published, ${count('exists')} already published, ` +
        `${count('below_min_cohort')} below the minimum cohort, ${count('cap_exceeded')} refused by the annual cap ` +
        `(weekly ${weeklyFirst}..${weeklyLast}, daily ${dailyFirst}..${dailyLast})`,
    );
    manifest.tacsi.publication = {
      weekly: { from: weeklyFirst, to: weeklyLast },
      daily: { from: dailyFirst, to: dailyLast },
    };
  },
};
