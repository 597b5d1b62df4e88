import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Simulator } from '../../simulator/server.ts';
import { runSyncJob } from '../../src/platforms/sync-worker.ts';
import { recomputeDailyScores } from '../../src/scoring/daily-scores.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import {
  closeSimulatedService,
  connectThroughSimulator,
  startSimulatedService,
} from '../helpers/simulator-oauth.ts';
import { workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * A sync rescores only from the first day whose snapshot changed (and the days not scored yet), and
 * what it stores equals a full recompute. Rewritten rows are told apart by their xmin (the
 * transaction that last wrote them).
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
const TODAY = utcDay(NOW);
beforeAll(async () => ({ sim, t } = await startSimulatedService(NOW)));
afterAll(() => closeSimulatedService({ sim, t }));

async function snapshots(workspaceId: string) {
  const rows = await t.db
    .selectFrom('metric_snapshots')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('day')
    .execute();
  return new Map(rows.map((r) => [String(r.day), JSON.stringify(r)]));
}

async function dailyScores(workspaceId: string) {
  const rows = await t.db
    .selectFrom('daily_scores')
    .select([
      'day',
      'score',
      'presence',
      'reach',
      'impact',
      'sentiment',
      'momentum',
      sql<string>`xmin::text`.as('xmin'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('formula_version', '=', CURRENT_FORMULA)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ ...r, day: String(r.day) }));
}

describe('sync recompute', () => {
  it('a sync that changes only the last day rewrites only the days from it, as a full recompute would', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
    const id = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform: 'instagram' });
    const sync = (n: number) =>
      runSyncJob(t.ctx, { connectionId: id, round: new Date(NOW.getTime() + n).toISOString(), attempt: 1 });

    expect(await sync(0)).toBe('synced');
    const first = await dailyScores(workspace.id);
    expect(first.at(-1)!.day).toBe(TODAY);

    // The same data again: no snapshot changed and every day is scored, so nothing is rewritten.
    expect(await sync(1)).toBe('synced');
    expect(await dailyScores(workspace.id)).toEqual(first);

    // A day passes for both: the sync re-reads the last days (unchanged) and brings one new day.
    const snapsBefore = await snapshots(workspace.id);
    sim.advanceDays(1);
    const newDay = addDays(TODAY, 1);
    t.setNow(new Date(NOW.getTime() + 86_400_000));
    expect(await sync(2)).toBe('synced');
    const snapsAfter = await snapshots(workspace.id);
    const changedDays = [...snapsAfter].filter(([day, row]) => snapsBefore.get(day) !== row).map(([d]) => d);
    expect(changedDays).toEqual([newDay]);

    const after = await dailyScores(workspace.id);
    expect(after.map((r) => r.day)).toEqual([...first.map((r) => r.day), newDay]);
    const xminBefore = new Map(first.map((r) => [r.day, r.xmin]));
    const rewritten = after.filter((r) => r.xmin !== xminBefore.get(r.day)).map((r) => r.day);
    expect(rewritten).toEqual(after.filter((r) => r.day >= newDay).map((r) => r.day));
    // Not the whole re-read range (the last 3 days too): only the day that changed.
    expect(rewritten).toEqual([newDay]);

    // A full recompute of every day stores exactly what the sync left.
    await recomputeDailyScores(t.db, workspace.id, first[0]!.day, newDay);
    const full = await dailyScores(workspace.id);
    const values = (rows: typeof first) => rows.map(({ xmin: _, ...r }) => r);
    expect(values(full)).toEqual(values(after));
    expect(full.every((r) => r.xmin !== xminBefore.get(r.day))).toBe(true);
  });
});
