import path from 'node:path';
import { sql } from 'kysely';
import type { AppContext } from '../src/context.ts';
import { startCpuProfile } from './profiler.ts';
import type { ScenarioResult } from './report.ts';
import { addDays } from './dates.ts';
import { median, round, timed } from './stats.ts';

type PublishWeeklyPeriod = (
  ctx: Pick<AppContext, 'db' | 'now'>,
  periodEnd: string,
  options?: { log?: (message: string) => void },
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

/**
 * One weekly period published through the TACSI publisher (src/tacsi/publish.ts publishWeeklyPeriod),
 * against the plain GROUP BY that computes the same per-entity means from the same daily_scores rows.
 * A period publishes once, so between runs the bench deletes that period's cells and ledger rows.
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
  try {
    ({ publishWeeklyPeriod } = (await import('../src/tacsi/publish.ts')) as {
      publishWeeklyPeriod: PublishWeeklyPeriod;
    });
    if (typeof publishWeeklyPeriod !== 'function')
      throw new Error('src/tacsi/publish.ts exports no publishWeeklyPeriod');
  } catch (error) {
    return { ...base, status: 'skipped', reason: `TACSI publisher unavailable: ${(error as Error).message}` };
  }

  const plain = async () =>
    sql`
      SELECT w.sector_slug, d.workspace_id, avg(d.score::float8) AS score, avg(d.presence::float8) AS presence,
             avg(d.reach::float8) AS reach, avg(d.impact::float8) AS impact, avg(d.sentiment::float8) AS sentiment,
             avg(d.momentum::float8) AS momentum
        FROM daily_scores d JOIN workspaces w ON w.id = d.workspace_id
       WHERE d.day BETWEEN ${addDays(periodEnd, -6)}::date AND ${periodEnd}::date
       GROUP BY w.sector_slug, d.workspace_id
    `.execute(ctx.db);
  const unpublish = async () => {
    await sql`DELETE FROM tacsi_privacy_ledger WHERE cadence = 'weekly' AND period_end = ${periodEnd}`.execute(
      ctx.db,
    );
    await sql`DELETE FROM tacsi_cells WHERE cadence = 'weekly' AND period_end = ${periodEnd}`.execute(ctx.db);
  };

  const plainMs: number[] = [];
  const publishMs: number[] = [];
  let groups = 0;
  let statuses: Record<string, number> = {};
  for (let i = 0; i < runs; i++) {
    const grouped = await timed(plain);
    plainMs.push(grouped.ms);
    groups = grouped.value.rows.length;
    if (i > 0) await unpublish();
    const profile = options.cpuProfileDir && i === runs - 1 ? await startCpuProfile() : null;
    const published = await timed(() => publishWeeklyPeriod(ctx, periodEnd, { log: () => {} }));
    await profile?.(path.join(options.cpuProfileDir!, 'tacsi-publication.cpuprofile'));
    publishMs.push(published.ms);
    statuses = {};
    for (const o of published.value) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  }

  const publishP50 = median(publishMs);
  const plainP50 = median(plainMs);
  const ratio = publishP50 / plainP50;
  const misses: string[] = [];
  if ((statuses.published ?? 0) < options.sectors + 1)
    misses.push(
      `published ${statuses.published ?? 0} cells, expected ${options.sectors} sectors + headline: ${JSON.stringify(statuses)}`,
    );
  if (!(ratio < 2)) misses.push(`publication ${ratio.toFixed(2)}x the GROUP BY (target < 2x)`);
  return {
    ...base,
    measured: `${round(publishP50)} ms per period`,
    limit: `GROUP BY ${round(plainP50)} ms (${groups} groups)`,
    ratio,
    target: '< 2x GROUP BY',
    misses,
    details: {
      periodEnd,
      runs,
      publishMs: publishMs.map((ms) => round(ms)),
      groupByMs: plainMs.map((ms) => round(ms)),
      outcomes: statuses,
      seedSeconds: round(options.seedSeconds),
    },
  };
}
