import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../src/context.ts';
import { startCpuProfile } from './profiler.ts';
import type { ScenarioResult } from './report.ts';
import { median, round, timed } from './stats.ts';
import { addDays } from '../src/core/days.ts';

type PublishOptions = { log?: (message: string) => void; m2From?: string };
type PublishWeeklyPeriod = (
  ctx: Pick<AppContext, 'db' | 'now' | 'state'>,
  periodEnd: string,
  options?: PublishOptions,
) => Promise<Array<{ sector: string; status: string }>>;
type PublishPeriod = (
  ctx: Pick<AppContext, 'db' | 'now' | 'state'>,
  cadence: 'daily' | 'weekly',
  periodEnd: string,
  options?: PublishOptions,
) => Promise<Array<{ sector: string; status: string }>>;

export interface PublicationOptions {
  periodEnd: string;
  entities: number;
  sectors: number;
  rows: number;
  seedSeconds: number;
  runs: number;
  /** Write a CPU profile of the last publication run there (tacsi-publication.cpuprofile). */
  cpuProfileDir: string | null;
}

/** Deletes the cells, histograms and ledger rows of the week ending `periodEnd`, so it publishes again. */
export async function unpublishWeek(ctx: Pick<AppContext, 'db'>, periodEnd: string): Promise<void> {
  const weekStart = addDays(periodEnd, -6);
  for (const table of ['tacsi_rho_ledger', 'tacsi_privacy_ledger', 'tacsi_histograms', 'tacsi_cells']) {
    await sql`DELETE FROM ${sql.table(table)} WHERE period_end BETWEEN ${weekStart}::date AND ${periodEnd}::date`.execute(
      ctx.db,
    );
  }
}

/**
 * One week published through the TACSI publisher under tacsi-m2 (the cut-over is set to the week's
 * Monday), as the scheduled jobs do it: the daily job publishes each of the week's seven days (every
 * bench sector has >= 250 brands, so each gets daily cells), then the weekly job derives the weekly
 * cells from them and the headline from those. Each job is measured against the plain GROUP BY that
 * computes the per-entity means of the same daily_scores rows (one day; the whole week). A period
 * publishes once, so between runs the bench deletes that week's cells, histograms and ledger rows.
 */
export async function runPublicationScenario(
  ctx: AppContext,
  options: PublicationOptions,
): Promise<ScenarioResult> {
  const { periodEnd, runs } = options;
  const base: ScenarioResult = {
    kind: 'batch',
    name: 'tacsi-publication',
    label: 'TACSI weekly publication',
    scale: `${options.entities} entities / ${options.sectors} sectors, ${options.rows} rows`,
    status: 'ok',
    misses: [],
  };
  let publishWeeklyPeriod: PublishWeeklyPeriod;
  let publishPeriod: PublishPeriod;
  try {
    ({ publishWeeklyPeriod, publishPeriod } = (await import('../src/tacsi/publish.ts')) as {
      publishWeeklyPeriod: PublishWeeklyPeriod;
      publishPeriod: PublishPeriod;
    });
    if (typeof publishWeeklyPeriod !== 'function' || typeof publishPeriod !== 'function')
      throw new Error('src/tacsi/publish.ts exports no publishWeeklyPeriod / publishPeriod');
  } catch (error) {
    return { ...base, status: 'skipped', reason: `TACSI publisher unavailable: ${(error as Error).message}` };
  }

  const weekStart = addDays(periodEnd, -6);
  const days = Array.from({ length: 7 }, (_, i) => addDays(weekStart, i));
  const publishOptions = { log: () => {}, m2From: weekStart };
  const plain = async (from: string, to: string) =>
    sql`
      SELECT w.sector_slug, d.workspace_id, avg(d.score::float8) AS score, avg(d.presence::float8) AS presence,
             avg(d.reach::float8) AS reach, avg(d.impact::float8) AS impact, avg(d.sentiment::float8) AS sentiment,
             avg(d.momentum::float8) AS momentum
        FROM daily_scores d JOIN workspaces w ON w.id = d.workspace_id
       WHERE d.day BETWEEN ${from}::date AND ${to}::date
       GROUP BY w.sector_slug, d.workspace_id
    `.execute(ctx.db);
  const unpublish = () => unpublishWeek(ctx, periodEnd);

  const plainMs: number[] = [];
  const publishMs: number[] = [];
  const plainDayMs: number[] = [];
  const publishDayMs: number[] = [];
  let groups = 0;
  let statuses: Record<string, number> = {};
  let dailyStatuses: Record<string, number> = {};
  for (let i = 0; i < runs; i++) {
    const grouped = await timed(() => plain(weekStart, periodEnd));
    plainMs.push(grouped.ms);
    groups = grouped.value.rows.length;
    plainDayMs.push((await timed(() => plain(periodEnd, periodEnd))).ms);
    if (i > 0) await unpublish();
    dailyStatuses = {};
    for (const day of days) {
      const published = await timed(() => publishPeriod(ctx, 'daily', day, publishOptions));
      publishDayMs.push(published.ms);
      for (const o of published.value) dailyStatuses[o.status] = (dailyStatuses[o.status] ?? 0) + 1;
    }
    const profile = options.cpuProfileDir && i === runs - 1 ? await startCpuProfile() : null;
    const published = await timed(() => publishWeeklyPeriod(ctx, periodEnd, publishOptions));
    await profile?.(path.join(options.cpuProfileDir!, 'tacsi-publication.cpuprofile'));
    publishMs.push(published.ms);
    statuses = {};
    for (const o of published.value) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  }

  const publishP50 = median(publishMs);
  const plainP50 = median(plainMs);
  const ratio = publishP50 / plainP50;
  const dayRatio = median(publishDayMs) / median(plainDayMs);
  const misses: string[] = [];
  if ((statuses.published ?? 0) < options.sectors + 1)
    misses.push(
      `published ${statuses.published ?? 0} weekly cells, expected ${options.sectors} sectors + headline: ${JSON.stringify(statuses)}`,
    );
  if ((dailyStatuses.published ?? 0) < 7 * options.sectors)
    misses.push(`published ${dailyStatuses.published ?? 0} daily cells, expected ${7 * options.sectors}`);
  if (!(ratio < 2)) misses.push(`weekly publication ${ratio.toFixed(2)}x the GROUP BY (target < 2x)`);
  if (!(dayRatio < 2))
    misses.push(`daily publication ${dayRatio.toFixed(2)}x the one-day GROUP BY (target < 2x)`);
  return {
    ...base,
    label: 'TACSI publication (tacsi-m2)',
    measured: `weekly ${round(publishP50)} ms, daily ${round(median(publishDayMs))} ms per period`,
    limit: `GROUP BY ${round(plainP50)} ms week (${groups} groups), ${round(median(plainDayMs))} ms day`,
    ratio: Math.max(ratio, dayRatio),
    target: '< 2x GROUP BY',
    misses,
    details: {
      periodEnd,
      methodology: 'tacsi-m2',
      runs,
      publishMs: publishMs.map((ms) => round(ms)),
      groupByMs: plainMs.map((ms) => round(ms)),
      weeklyRatio: round(ratio),
      publishDayMs: publishDayMs.map((ms) => round(ms)),
      groupByDayMs: plainDayMs.map((ms) => round(ms)),
      dailyRatio: round(dayRatio),
      outcomes: statuses,
      dailyOutcomes: dailyStatuses,
      seedSeconds: round(options.seedSeconds),
    },
  };
}
