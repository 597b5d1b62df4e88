// The sync scenario: N OAuth connections against the platform simulator (in this process, clock
// still), each synced yesterday (90 days of snapshots and daily scores held), one scheduled round
// through the real claim and job handler (each sync brings one new day), next to the raw
// fetch-and-upsert of the same data; the round's time at two sizes shows how it grows.
import { CONNECTORS, ApiClient } from '../src/ingest/connectors/index.ts';
import { claimDueConnections, runSyncJob, syncJob, type SyncJob } from '../src/platforms/sync-worker.ts';
import { snapshotRow, upsertSnapshots } from '../src/ingest/store.ts';
import { FIRST_SYNC_DAYS, RESYNC_OVERLAP_DAYS } from '../src/ingest/sync.ts';
import type { CompositeGrade } from '../src/scoring/engine/index.ts';
import { computeDailyScores, CURRENT_FORMULA, type DailyScoreRow } from '../src/scoring/daily-scores.ts';
import { snapshotsByWorkspace, writeNewDailyScores } from '../src/scoring/bulk-io.ts';
import { loadSnapshotsForScoring } from '../src/scoring/snapshots.ts';
import { loadConfig } from '../src/infra/config.ts';
import { sealedAt } from '../src/infra/crypto/sealed-columns.ts';
import { newId } from '../src/infra/ids.ts';
import { platformEndpoints } from '../src/platforms/oauth-config.ts';
import { sealTokens } from '../src/platforms/vault.ts';
import { createService, type Service } from '../src/service.ts';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { sql } from 'kysely';
import { addDays, utcDay } from '../src/core/days.ts';
import { PLATFORMS, type Platform } from '../src/core/catalog.ts';
import type { ScenarioResult } from './report.ts';
import { round } from './stats.ts';
import type { BenchDatabase } from './target.ts';

/** Syncs in flight at once in the bench process (SYNC_CONCURRENCY 4 x 5 platforms in a service). */
const IN_FLIGHT = 8;

async function seed(service: Service, sim: Simulator, n: number, tag: string, now: Date): Promise<string[]> {
  const db = service.ctx.db;
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    const batch = Math.min(500, n - i);
    const workspaces = Array.from({ length: batch }, (_, j) => ({
      id: newId('ws'),
      name: `Sync bench ${tag} ${i + j}`,
      plan: 'agency' as const,
    }));
    await db.insertInto('workspaces').values(workspaces).execute();
    const rows = workspaces.map((w, j) => {
      const platform = PLATFORMS[(i + j) % PLATFORMS.length]!;
      const handle = `bench${tag}${i + j}`;
      const t = sim.issueTokens(platform, handle);
      const id = newId('pc');
      ids.push(id);
      return {
        id,
        workspace_id: w.id,
        platform,
        handle,
        // What the identity lookup stores at connect (the Instagram connector reads the account by it).
        account_id: platform === 'instagram' ? `ig_${handle}` : null,
        connected_at: addDaysDate(now, -2),
        last_sync_at: addDaysDate(now, -1),
        ...sealTokens(
          service.ctx.keyRing,
          {
            accessToken: t.access_token,
            refreshToken: t.refresh_token,
            expiresAt: new Date(now.getTime() + 86_400_000),
            scopes: t.scope ?? null,
          },
          { table: 'platform_connections', row: id },
        ),
      };
    });
    await db.insertInto('platform_connections').values(rows).execute();
  }
  await seedHistory(service, ids, now);
  return ids;
}

/**
 * What a connection synced yesterday holds: snapshots of the 90-day window up to yesterday and
 * its daily scores. The days a sync re-reads (from 3 days back) come from the simulator through the
 * connector, so today's sync finds them unchanged and brings one new day, as a daily sync does;
 * the older ones are written in bulk (their values only need to be there for the window read).
 * The daily scores are the engine's own for those snapshots (as the last sync stored them, the
 * last day with its interval), so a sync fires score.changed only when today's data really moves
 * the score (a flat seeded 50 made every sync fire it, two statements more each).
 */
async function seedHistory(service: Service, ids: string[], now: Date): Promise<void> {
  const db = service.ctx.db;
  const today = utcDay(now);
  const yesterday = addDays(today, -1);
  const first = addDays(today, -(FIRST_SYNC_DAYS - 1));
  const lastBulk = addDays(today, -(RESYNC_OVERLAP_DAYS + 2));
  await sql`
    INSERT INTO metric_snapshots (workspace_id, platform, day, followers, posts, impressions, likes, comments, source)
    SELECT c.workspace_id, c.platform, d::date, 10000 + 7 * k, k % 3, 900 + 13 * k, 40 + k, 5 + k % 7, 'connector'
    FROM platform_connections c,
         generate_series(${first}::date, ${lastBulk}::date, '1 day') AS d,
         LATERAL (SELECT (d::date - ${today}::date + 100) AS k) AS n
    WHERE c.id = ANY(${ids}::text[])`.execute(db);
  await raw(service, ids, now, { since: addDays(today, -(RESYNC_OVERLAP_DAYS + 1)), until: yesterday });

  const connections = await db
    .selectFrom('platform_connections')
    .select(['workspace_id', 'platform'])
    .where('id', 'in', ids)
    .execute();
  // The bulk days are the same for every connection of a platform: their scores are computed once
  // per platform (90 engine days cost ~30 ms) and copied; the days the simulator wrote, per workspace.
  const gradeBefore = new Map<Platform, DailyScoreRow['grade']>();
  for (const platform of PLATFORMS) {
    const one = connections.find((c) => c.platform === platform);
    if (!one) continue;
    const snapshots = await loadSnapshotsForScoring(db, one.workspace_id, { to: lastBulk });
    const rows = computeDailyScores(one.workspace_id, snapshots, first, lastBulk, { lastInterval: false });
    gradeBefore.set(platform, rows.at(-1)?.grade ?? null);
    const col = <K extends keyof DailyScoreRow>(k: K) => rows.map((r) => r[k]);
    await sql`
      INSERT INTO daily_scores (workspace_id, day, score, presence, reach, impact, sentiment, momentum, grade, formula_version)
      SELECT c.workspace_id, t.day, t.score, t.presence, t.reach, t.impact, t.sentiment, t.momentum, t.grade, ${CURRENT_FORMULA}
      FROM platform_connections c,
           unnest(${col('day')}::date[], ${col('score')}::real[], ${col('presence')}::real[], ${col('reach')}::real[],
                  ${col('impact')}::real[], ${col('sentiment')}::real[], ${col('momentum')}::real[], ${col('grade')}::text[])
             AS t(day, score, presence, reach, impact, sentiment, momentum, grade)
      WHERE c.id = ANY(${ids}::text[]) AND c.platform = ${platform}`.execute(db);
  }
  const platformOf = new Map(connections.map((c) => [c.workspace_id, c.platform]));
  let pending: DailyScoreRow[] = [];
  for await (const [id, snapshots] of snapshotsByWorkspace(service.ctx, [...platformOf.keys()])) {
    pending.push(
      ...computeDailyScores(id, snapshots, addDays(lastBulk, 1), yesterday, {
        previousGrade: (gradeBefore.get(platformOf.get(id)!) as CompositeGrade | null) ?? null,
      }),
    );
    if (pending.length >= 5000) {
      await writeNewDailyScores(service.ctx, pending);
      pending = [];
    }
  }
  await writeNewDailyScores(service.ctx, pending);
}

/** score.changed events recorded so far (the bench counts how many syncs fired one). */
async function scoreChangedEvents(service: Service): Promise<number> {
  const row = await service.ctx.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('type', '=', 'score.changed')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const addDaysDate = (d: Date, days: number) => new Date(d.getTime() + days * 86_400_000);

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** One scheduled round: claim, then every job through runSyncJob. Returns seconds. */
async function round1(service: Service): Promise<{ seconds: number; synced: number }> {
  const t0 = performance.now();
  await claimDueConnections(service.ctx);
  const jobs: SyncJob[] = [];
  for (const platform of PLATFORMS) {
    for (;;) {
      const got = await service.ctx.jobs.boss.fetch<SyncJob>(syncJob(platform).queue, { batchSize: 1000 });
      if (!got?.length) break;
      jobs.push(...got.map((j) => j.data));
    }
  }
  let synced = 0;
  await pool(jobs, IN_FLIGHT, async (job) => {
    if ((await runSyncJob(service.ctx, job)) === 'synced') synced++;
  });
  return { seconds: (performance.now() - t0) / 1000, synced };
}

/** The same fetch and upsert without the pipeline (no claim, job, health, scores or events). */
async function raw(
  service: Service,
  ids: string[],
  now: Date,
  range: { since: string; until: string } = {
    since: addDays(utcDay(now), -(RESYNC_OVERLAP_DAYS + 1)),
    until: utcDay(now),
  },
): Promise<number> {
  const rows = await service.ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'workspace_id', 'platform', 'handle', 'account_id', 'access_token', 'access_token_key_id'])
    .where('id', 'in', ids)
    .execute();
  const t0 = performance.now();
  await pool(rows, IN_FLIGHT, async (c) => {
    const connector = CONNECTORS[c.platform];
    const token = service.ctx.keyRing.open(
      { ciphertext: c.access_token!, keyId: c.access_token_key_id! },
      sealedAt('platform_connections.access_token', c.id),
    );
    const client = new ApiClient({
      platform: c.platform,
      baseUrls: platformEndpoints(service.ctx.config, c.platform).apiBaseUrls,
      headers: connector.authHeaders(token),
      timeoutMs: 15_000,
      maxBytes: 10 * 1024 * 1024,
      fetch,
    });
    const result = await connector.fetchSnapshots(
      client,
      { handle: c.handle, accountId: c.account_id },
      range,
    );
    await upsertSnapshots(
      service.ctx.db,
      result.snapshots.map((s) => snapshotRow(c.workspace_id, s, 'connector')),
    );
  });
  return (performance.now() - t0) / 1000;
}

export async function runSyncScenario(
  database: BenchDatabase,
  options: { connections: number; small: number; now: Date },
): Promise<ScenarioResult> {
  const { now } = options;
  const sim = await startSimulator({ port: 0, speed: 0, startDay: utcDay(now), now: () => now.getTime() });
  const service = await createService(
    {
      ...loadConfig({ LOG_LEVEL: 'warn', SIMULATOR_URL: sim.url }),
      databaseUrl: database.databaseUrl,
      dataDir: database.dataDir,
      runWorkers: false,
    },
    { now: () => now, dataDir: database.dataDir },
  );
  try {
    const small = await seed(service, sim, options.small, 's', now);
    const smallRound = await round1(service);
    const large = [...small, ...(await seed(service, sim, options.connections - options.small, 'l', now))];
    // The large round: every connection due again (the small ones too, back in yesterday's state:
    // today's snapshot and score not there yet), so N in all, each bringing one new day.
    const today = utcDay(now);
    const smallWorkspaces = service.ctx.db
      .selectFrom('platform_connections')
      .select('workspace_id')
      .where('id', 'in', small);
    await service.ctx.db
      .deleteFrom('metric_snapshots')
      .where('day', '=', today)
      .where('workspace_id', 'in', smallWorkspaces)
      .execute();
    await service.ctx.db
      .deleteFrom('daily_scores')
      .where('day', '=', today)
      .where('workspace_id', 'in', smallWorkspaces)
      .execute();
    await service.ctx.db.updateTable('platform_connections').set({ next_sync_at: null }).execute();
    const eventsBefore = await scoreChangedEvents(service);
    const largeRound = await round1(service);
    const scoreChanged = (await scoreChangedEvents(service)) - eventsBefore;
    // The raw baseline over the same N connections and days, right after (today's rows now exist).
    const rawLarge = await raw(service, large, now);
    const perSync = largeRound.seconds / Math.max(1, largeRound.synced);
    const perSmallSync = smallRound.seconds / Math.max(1, smallRound.synced);
    const perRaw = rawLarge / Math.max(1, large.length);
    const ratio = round(perSync / perRaw);
    const misses = [
      ...(ratio >= 2 ? [`one sync costs ${ratio}x the raw fetch-and-upsert (target < 2x)`] : []),
      ...(largeRound.synced !== options.connections
        ? [`${options.connections - largeRound.synced} connections not synced`]
        : []),
    ];
    return {
      kind: 'batch',
      name: 'sync',
      label: 'scheduled sync round against the simulator',
      scale: `${options.small} then ${options.connections} connections`,
      status: 'ok',
      measured: `${round(largeRound.synced / largeRound.seconds)} connections/s (${options.connections} in ${round(largeRound.seconds)} s)`,
      limit: `raw fetch-and-upsert ${round(1000 * perRaw)} ms per connection; one sync ${round(1000 * perSync)} ms`,
      ratio,
      target: '< 2x raw',
      misses,
      details: {
        smallRound: {
          connections: options.small,
          seconds: round(smallRound.seconds),
          synced: smallRound.synced,
        },
        largeRound: {
          connections: options.connections,
          seconds: round(largeRound.seconds),
          synced: largeRound.synced,
        },
        growth: round(largeRound.seconds / smallRound.seconds),
        // Syncs of the large round that fired score.changed (the event row and its fan-out job).
        scoreChangedLarge: scoreChanged,
        msPerSyncLarge: round(1000 * perSync),
        msPerSyncSmall: round(1000 * perSmallSync),
        msPerRaw: round(1000 * perRaw),
        inFlight: IN_FLIGHT,
      },
    };
  } finally {
    await service.stop();
    await sim.close();
  }
}
