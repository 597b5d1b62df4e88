import type { Insertable, Kysely } from 'kysely';
import type { AppContext } from '../../src/context.ts';
import { runAuditJob } from '../../src/audits/jobs.ts';
import type { AuditsTable, DB } from '../../src/infra/db/types.ts';
import { snapshotRow, upsertSnapshots } from '../../src/ingest/store.ts';
import { syntheticSnapshots } from '../helpers/synthetic.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';

/** Synthetic daily snapshots for `days` days ending on `asOf` (UTC day of now by default). */
export async function seedMetrics(
  db: Kysely<DB>,
  workspaceId: string,
  options: { platforms: Platform[]; days?: number; asOf?: string; seed?: number; followers?: number },
): Promise<void> {
  const days = options.days ?? 120;
  const asOf = options.asOf ?? utcDay(new Date());
  const snapshots = syntheticSnapshots({
    seed: options.seed ?? 7,
    from: addDays(asOf, -(days - 1)),
    days,
    platforms: options.platforms,
    ...(options.followers !== undefined ? { followers: options.followers } : {}),
  });
  await upsertSnapshots(
    db,
    snapshots.map((s) => snapshotRow(workspaceId, s, 'sandbox')),
  );
}

/** Runs the audit's job once, as the worker would (first attempt). */
export function runJob(ctx: AppContext, auditId: string, retryCount = 0) {
  return runAuditJob(ctx, { data: { auditId }, retryCount });
}

/** Inserts finished audits created at `at` (quota fixtures). */
export async function insertFinishedAudits(
  db: Kysely<DB>,
  workspaceId: string,
  count: number,
  status: 'completed' | 'failed',
  at: Date,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    await db
      .insertInto('audits')
      .values({
        id: `aud_fixture_${workspaceId}_${status}_${i}_${at.getTime()}`,
        workspace_id: workspaceId,
        status,
        platforms: ['instagram'],
        lookback_days: 90,
        estimated_completion: at,
        created_at: at,
        completed_at: at,
        ...(status === 'completed'
          ? {
              score: 50,
              grade: 'moderate',
              formula_version: 'v1',
              pillars: JSON.stringify(
                Object.fromEntries(
                  ['presence', 'reach', 'impact', 'sentiment', 'momentum'].map((k) => [
                    k,
                    { score: 50, change: '+0.0', grade: 'yellow', value: 50 },
                  ]),
                ),
              ),
              recommendations: '[]',
              industry_benchmark: JSON.stringify({ your_score: 50, industry_average: 50, percentile: 50 }),
            }
          : { failure_reason: 'fixture' }),
      })
      .execute();
  }
}

/**
 * A completed audit written straight into the table, as an earlier release or formula stored it (the
 * service has no way to make such a row today): one instagram platform, 90-day look-back, finished
 * `at`. `fields` override or add columns (formula_version, pillars, crisis, interval, ...).
 */
export async function insertCompletedAudit(
  db: Kysely<DB>,
  audit: { id: string; workspaceId: string; at: Date; score: number; grade: string },
  fields: Partial<Insertable<AuditsTable>> = {},
): Promise<void> {
  await db
    .insertInto('audits')
    .values({
      id: audit.id,
      workspace_id: audit.workspaceId,
      status: 'completed',
      platforms: ['instagram'],
      lookback_days: 90,
      estimated_completion: audit.at,
      created_at: audit.at,
      completed_at: audit.at,
      score: audit.score,
      grade: audit.grade,
      pillars: '{}',
      recommendations: '[]',
      industry_benchmark: '{}',
      ...fields,
    })
    .execute();
}
