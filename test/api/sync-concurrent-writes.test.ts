import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.ts';
import { runSyncJob } from '../../src/platforms/sync-worker.ts';
import { recomputeDailyScores } from '../../src/scoring/daily-scores.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { usingPostgres } from '../helpers/database.ts';
import { workspaceWithKey, type TestService } from '../helpers/service.ts';
import {
  closeSimulatedService,
  connectThroughSimulator,
  startSimulatedService,
} from '../helpers/simulator-oauth.ts';

/**
 * A sync fetches outside its transaction, then reads the score before and the scoring window under the
 * workspace lock (docs/ingestion.md "Scheduled sync"). Here another writer commits while the sync is
 * fetching: what the sync stores and the event it fires must rest on that write, as a full recompute does.
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
const TODAY = utcDay(NOW);
let days = 0;
beforeAll(async () => ({ sim, t } = await startSimulatedService(NOW)));
afterAll(() => closeSimulatedService({ sim, t }));

/** An Agency workspace with Instagram connected through the simulator and synced once (today's score stored). */
async function syncedWorkspace() {
  const { workspace, key } = await workspaceWithKey(t.db, { plan: 'agency' });
  const id = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform: 'instagram' });
  expect(await sync(id)).toBe('synced');
  return { workspaceId: workspace.id, connectionId: id };
}

const sync = (connectionId: string, fetchImpl?: typeof fetch) =>
  runSyncJob(
    t.ctx,
    { connectionId, round: `${Date.now()}-${Math.random()}`, attempt: 1 },
    fetchImpl ? { fetch: fetchImpl } : {},
  );

/** A day passes for the simulator and the service; returns the new today. */
function nextDay(): string {
  days++;
  sim.advanceDays(1);
  t.setNow(new Date(NOW.getTime() + days * 86_400_000));
  return addDays(TODAY, days);
}

/** A fetch that runs `during` once, on the platform's first request, after the claim and before the lock. */
function fetchWith(during: () => Promise<void>): typeof fetch {
  let done = false;
  return async (input, init) => {
    if (!done) {
      done = true;
      await during();
    }
    return fetch(input, init);
  };
}

/** Another platform's snapshot of `day`, as an import or a sync of that platform would write it. */
const facebookSnapshot = (workspaceId: string, day: string) => ({
  workspace_id: workspaceId,
  platform: 'facebook' as const,
  day,
  followers: 250_000,
  posts: 4,
  impressions: 400_000,
  likes: 9_000,
  comments: 700,
  source: 'import' as const,
});

async function scoreOf(workspaceId: string, day: string) {
  return t.db
    .selectFrom('daily_scores')
    .select(['score', 'presence', 'reach', 'impact', 'sentiment', 'momentum', 'grade'])
    .where('workspace_id', '=', workspaceId)
    .where('day', '=', day)
    .executeTakeFirstOrThrow();
}

/** The day's stored score equals a recompute from everything stored now. */
async function expectRecomputed(workspaceId: string, day: string) {
  const stored = await scoreOf(workspaceId, day);
  await recomputeDailyScores(t.db, workspaceId, day, day);
  expect(await scoreOf(workspaceId, day)).toEqual(stored);
}

describe('a sync and other writers of its workspace', () => {
  it('scores from a score or snapshot written while it fetched (a writer without the workspace lock)', async () => {
    const { workspaceId, connectionId } = await syncedWorkspace();
    const day = nextDay();
    const result = await sync(
      connectionId,
      fetchWith(async () => {
        // While the sync fetches: another platform's data for the new day, and yesterday's stored
        // score rewritten far below (as an audit completing at that moment would store its own).
        await t.db.insertInto('metric_snapshots').values(facebookSnapshot(workspaceId, day)).execute();
        await t.db
          .updateTable('daily_scores')
          .set({ score: 5, score_low: 4.9, score_high: 5.1 })
          .where('workspace_id', '=', workspaceId)
          .where('day', '=', addDays(day, -1))
          .execute();
      }),
    );
    expect(result).toBe('synced');
    // The new day's score includes the facebook snapshot ...
    await expectRecomputed(workspaceId, day);
    // ... and score.changed compares against the score stored when the sync held the lock.
    const events = await t.db
      .selectFrom('events')
      .select('data')
      .where('workspace_id', '=', workspaceId)
      .where('type', '=', 'score.changed')
      .execute();
    expect(events).toHaveLength(1);
    expect((events[0]!.data as { previous_score: number }).previous_score).toBe(5);
  });

  it('with nothing written in between, gives what a recompute gives and no event for an unchanged score', async () => {
    const { workspaceId, connectionId } = await syncedWorkspace();
    const day = nextDay();
    expect(await sync(connectionId)).toBe('synced');
    await expectRecomputed(workspaceId, day);
    // The same day again: nothing changed, nothing fires.
    expect(await sync(connectionId)).toBe('synced');
    await expectRecomputed(workspaceId, day);
  });

  // Needs two sessions at once (PGlite has one).
  it.runIf(usingPostgres())(
    'scores from what another sync wrote while this one waited for the workspace lock',
    async () => {
      const { workspaceId, connectionId } = await syncedWorkspace();
      const day = nextDay();
      let release!: () => void;
      let holder!: Promise<void>;
      const result = await sync(
        connectionId,
        fetchWith(async () => {
          // Another sync of the workspace: it holds the lock and writes a snapshot, and commits only
          // after this sync asked for the lock.
          let locked!: () => void;
          const hasLock = new Promise<void>((resolve) => (locked = resolve));
          holder = t.db.transaction().execute(async (trx) => {
            await trx
              .selectFrom('workspaces')
              .select('id')
              .where('id', '=', workspaceId)
              .forUpdate()
              .execute();
            await trx.insertInto('metric_snapshots').values(facebookSnapshot(workspaceId, day)).execute();
            locked();
            await new Promise<void>((resolve) => (release = resolve));
          });
          await hasLock;
          setTimeout(() => release(), 500);
        }),
      );
      await holder;
      expect(result).toBe('synced');
      await expectRecomputed(workspaceId, day);
    },
  );
});
