// Benchmark hook (`npm run bench`): scores N synthetic workspaces end to end.
import { completeAudit } from '../audits/complete.ts';
import { startAudit } from '../audits/start.ts';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import type { Platform } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { snapshotRow, upsertSnapshots, type SnapshotRow } from '../ingest/store.ts';
import { snapshotsByWorkspace, writeNewDailyScores } from './bulk-io.ts';
import { computeDailyScores, type DailyScoreRow } from './daily-scores.ts';
import { addDays, utcDay } from './days.ts';
import { syntheticSnapshots } from './engine/synthetic.ts';

export interface BenchScoringOptions {
  /** Workspaces to create and score. */
  count: number;
  /** Days of metric history per platform (default 365). */
  days?: number;
  platforms?: Platform[];
  seed?: number;
}

export interface BenchScoringResult {
  workspaces: number;
  snapshots: number;
  /** Creating the workspaces and writing their snapshots. */
  seedMs: number;
  /** Computing and storing every workspace's daily score series. */
  dailyScoresMs: number;
  dailyScores: number;
  /** POST /v1/audit/run's service call (checks, insert, enqueue) for every workspace. */
  startMs: number;
  /** The audit job's work (load, score, benchmark, one completing transaction) for every workspace. */
  completeMs: number;
  auditsPerSecond: number;
}

/**
 * Creates `count` enterprise workspaces with synthetic metric history, stores their daily
 * scores, then runs one audit per workspace through the same functions the API and the worker
 * use (startAudit, completeAudit). Timings are wall-clock milliseconds.
 */
export async function benchScoreWorkspaces(
  ctx: AppContext,
  options: BenchScoringOptions,
): Promise<BenchScoringResult> {
  const days = options.days ?? 365;
  const platforms = options.platforms ?? ['instagram', 'tiktok', 'youtube'];
  const today = utcDay(ctx.now());
  const from = addDays(today, -days);

  let t = performance.now();
  const ids: string[] = [];
  let rows: SnapshotRow[] = [];
  let snapshots = 0;
  for (let i = 0; i < options.count; i++) {
    const id = newId('ws');
    ids.push(id);
    await ctx.db
      .insertInto('workspaces')
      .values({ id, name: `Bench ${i + 1}`, plan: 'enterprise' })
      .execute();
    await ctx.db
      .insertInto('platform_connections')
      .values(
        platforms.map((platform) => ({
          id: newId('pc'),
          workspace_id: id,
          platform,
          handle: `@bench${i}_${platform}`,
        })),
      )
      .execute();
    const series = syntheticSnapshots({ seed: (options.seed ?? 1) * 100_003 + i, from, days, platforms });
    rows.push(...series.map((s) => snapshotRow(id, s, 'sandbox')));
    snapshots += series.length;
    if (rows.length >= 10_000) {
      await upsertSnapshots(ctx.db, rows);
      rows = [];
    }
  }
  await upsertSnapshots(ctx.db, rows);
  const seedMs = performance.now() - t;

  t = performance.now();
  let daily: DailyScoreRow[] = [];
  let dailyScores = 0;
  for await (const [id, list] of snapshotsByWorkspace(ctx, ids)) {
    daily.push(...computeDailyScores(id, list, from, addDays(today, -1)));
    if (daily.length >= 20_000) {
      await writeNewDailyScores(ctx, daily);
      dailyScores += daily.length;
      daily = [];
    }
  }
  await writeNewDailyScores(ctx, daily);
  dailyScores += daily.length;
  const dailyScoresMs = performance.now() - t;

  t = performance.now();
  const audits: string[] = [];
  for (const id of ids) {
    const principal: WorkspacePrincipal = {
      kind: 'workspace',
      keyId: 'bench',
      scopes: ['read', 'write'],
      workspaceId: id,
      plan: 'enterprise',
      accountType: 'brand',
      expiresAt: null,
    };
    audits.push((await startAudit(ctx, principal, {})).audit_id);
  }
  const startMs = performance.now() - t;

  t = performance.now();
  for (const id of audits) await completeAudit(ctx, id);
  const completeMs = performance.now() - t;

  return {
    workspaces: ids.length,
    snapshots,
    seedMs,
    dailyScoresMs,
    dailyScores,
    startMs,
    completeMs,
    auditsPerSecond: audits.length / (completeMs / 1000),
  };
}
