import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { importMetrics } from '../../src/ingest/import-file.ts';
import { syncPlatform, syncWorkspace } from '../../src/ingest/sync.ts';
import { GRAPH_API_VERSION } from '../../src/ingest/connectors/index.ts';
import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { fixtureServer, loadFixture } from '../unit/connectors-fixtures/server.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => t?.close());

async function snapshotCount(workspaceId: string) {
  const row = await t.db
    .selectFrom('metric_snapshots')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const HEADER = 'workspace_id,platform,day,followers,posts,impressions,likes,comments,shares,saves,mentions';

describe('metrics import', () => {
  it('imports a valid CSV in one go, classifies texts and recomputes the stored daily scores', async () => {
    const ws = await createWorkspace(t.db, { name: 'Importer', plan: 'pro' });
    const csv = [
      `${HEADER},texts`,
      `${ws.id},instagram,2025-01-01,1000,1,500,40,4,2,1,0,"[""I love it, fantastic!"",""Awful, broken and late."",""The shop is on Main Street.""]"`,
      `${ws.id},instagram,2025-01-02,1010,0,300,20,1,0,0,1,`,
      `${ws.id},tiktok,2025-01-02,50,2,900,70,3,1,0,0,"[""best purchase ever, thank you""]"`,
    ].join('\n');
    const report = await importMetrics(t.ctx, csv, 'csv');
    expect(report).toMatchObject({
      format: 'csv',
      rows: 3,
      imported: 3,
      rejected: [],
      committed: true,
      workspaces: 1,
    });
    const rows = await t.db
      .selectFrom('metric_snapshots')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .orderBy('day')
      .orderBy('platform')
      .execute();
    expect(rows.map((r) => [r.platform, r.day, r.followers, r.impressions, r.source])).toEqual([
      ['instagram', '2025-01-01', 1000, 500, 'import'],
      ['instagram', '2025-01-02', 1010, 300, 'import'],
      ['tiktok', '2025-01-02', 50, 900, 'import'],
    ]);
    expect([rows[0]!.sentiment_positive, rows[0]!.sentiment_negative, rows[0]!.sentiment_neutral]).toEqual([
      1, 1, 1,
    ]);
    expect(rows[2]!.sentiment_positive).toBe(1);
    // Each imported day moves that day's stored score and those after it that read it (lastDayMovedBy);
    // a day whose 90-day window holds no data has no score, so the stored days end 89 days after the last.
    const daily = await t.db
      .selectFrom('daily_scores')
      .select('day')
      .where('workspace_id', '=', ws.id)
      .where('formula_version', '=', CURRENT_FORMULA)
      .orderBy('day')
      .execute();
    expect(daily[0]!.day).toBe('2025-01-01');
    expect(daily.at(-1)!.day).toBe('2025-04-01');
    expect(report.dailyScores).toBe(daily.length);
  });

  it('rejects the whole file when any row is bad, naming each line and reason', async () => {
    const ws = await createWorkspace(t.db, { name: 'Strict', plan: 'pro' });
    const csv = [
      `${HEADER},sentiment_positive,text`,
      `${ws.id},instagram,2025-01-01,1000,1,500,40,4,2,1,0,,`, // line 2: fine
      `${ws.id},myspace,2025-01-01,1000,1,500,40,4,2,1,0,,`,
      `${ws.id},instagram,2999-01-01,1000,1,500,40,4,2,1,0,,`,
      `${ws.id},instagram,2025-01-02,-5,1,500,40,4,2,1,0,,`,
      `ws_missing,instagram,2025-01-02,10,1,500,40,4,2,1,0,,`,
      `${ws.id},instagram,2025-01-01,1001,1,500,40,4,2,1,0,,`,
      `${ws.id},instagram,2025-01-03,1000,1`,
      `${ws.id},youtube,2025-01-03,1000,1,500,40,4,2,1,0,3,"good"`,
      `${ws.id},youtube,2025-02-30,1000,1,500,40,4,2,1,0,,`,
      `${ws.id},youtube,2025-01-04,,1,500,40,4,2,1,0,,`,
      `${ws.id},youtube,2025-01-05,10,1.5,500,40,4,2,1,0,,`,
    ].join('\n');
    const report = await importMetrics(t.ctx, csv, 'csv');
    expect(report.committed).toBe(false);
    expect(report.imported).toBe(0);
    expect(report.rows).toBe(11);
    expect(report.rejected).toEqual([
      {
        line: 3,
        reason: 'platform must be one of instagram, tiktok, youtube, twitter, facebook, got "myspace"',
      },
      { line: 4, reason: 'day 2999-01-01 is in the future' },
      { line: 5, reason: 'followers must be a whole number >= 0, got "-5"' },
      { line: 6, reason: 'workspace ws_missing does not exist' },
      { line: 7, reason: 'duplicates line 2 (same workspace_id, platform and day)' },
      { line: 8, reason: 'has 5 fields, the header has 13' },
      { line: 9, reason: 'give sentiment counts or texts to classify, not both' },
      { line: 10, reason: 'day must be a YYYY-MM-DD date' },
      { line: 11, reason: 'followers is required' },
      { line: 12, reason: 'posts must be a whole number >= 0, got "1.5"' },
    ]);
    expect(await snapshotCount(ws.id)).toBe(0);

    // With --skip-invalid the one good row goes in and the rest are reported.
    const skipped = await importMetrics(t.ctx, csv, 'csv', { skipInvalid: true });
    expect(skipped).toMatchObject({ committed: true, imported: 1 });
    expect(skipped.rejected).toHaveLength(10);
    expect(await snapshotCount(ws.id)).toBe(1);
  });

  it('reads JSON lines with texts arrays; bad lines are reported by number', async () => {
    const ws = await createWorkspace(t.db, { name: 'Lines', plan: 'pro' });
    const good = {
      workspace_id: ws.id,
      platform: 'twitter',
      day: '2025-02-01',
      followers: 300,
      mentions: 2,
      texts: ['Love this brand!', 'worst support ever'],
    };
    const lines = [
      JSON.stringify(good),
      '',
      '{"workspace_id": ',
      '[1, 2]',
      JSON.stringify({ ...good, day: '2025-02-02', colour: 'red' }),
      JSON.stringify({ ...good, day: '2025-02-03', texts: 'not an array' }),
      JSON.stringify({ ...good, day: '2025-02-04', profile_completeness: 1.5 }),
      JSON.stringify({ ...good, day: '2025-02-05', comments_attributed: 4, comments_repeat: 5 }),
    ].join('\n');
    const report = await importMetrics(t.ctx, lines, 'jsonl');
    expect(report.rejected).toEqual([
      { line: 3, reason: 'not valid JSON' },
      { line: 4, reason: 'must be a JSON object' },
      { line: 5, reason: 'unknown field colour' },
      { line: 6, reason: 'texts must be an array of strings' },
      { line: 7, reason: 'profile_completeness must be a number from 0 to 1' },
      { line: 8, reason: 'comments_repeat cannot exceed comments_attributed (it counts a part of them)' },
    ]);
    expect(report.committed).toBe(false);
    const ok = await importMetrics(t.ctx, JSON.stringify(good), 'jsonl');
    expect(ok.committed).toBe(true);
    const row = await t.db
      .selectFrom('metric_snapshots')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect([row.sentiment_positive, row.sentiment_negative, row.mentions]).toEqual([1, 1, 2]);

    // Importing the same day again replaces it.
    await importMetrics(t.ctx, JSON.stringify({ ...good, followers: 350, texts: [] }), 'jsonl');
    const replaced = await t.db
      .selectFrom('metric_snapshots')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect([replaced.followers, replaced.sentiment_positive]).toEqual([350, 0]);
  });

  it('rescores only from the first day whose snapshot changed; an unchanged re-import rescores nothing', async () => {
    const ws = await createWorkspace(t.db, { name: 'Re-importer', plan: 'pro' });
    const line = (day: string, impressions: number) =>
      `${ws.id},instagram,${day},1000,1,${impressions},40,4,2,1,0`;
    const days = ['2025-02-01', '2025-02-02', '2025-02-03', '2025-02-04', '2025-02-05'];
    const first = [HEADER, ...days.map((d, i) => line(d, 500 + 10 * i))];
    const initial = await importMetrics(t.ctx, first.join('\n'), 'csv');
    const scores = () =>
      t.db
        .selectFrom('daily_scores')
        .select(['day', 'formula_version', 'grade'])
        .where('workspace_id', '=', ws.id)
        .where('formula_version', '=', CURRENT_FORMULA)
        .orderBy('day')
        .execute();
    const stored = await scores();
    expect(initial.dailyScores).toBe(stored.length);
    // A marker no computation writes (every computed day has a grade): a rescored day loses it.
    const mark = () =>
      t.db.updateTable('daily_scores').set({ grade: null }).where('workspace_id', '=', ws.id).execute();

    await mark();
    const same = await importMetrics(t.ctx, first.join('\n'), 'csv');
    expect(same).toMatchObject({ imported: 5, committed: true, dailyScores: 0 });
    expect((await scores()).every((s) => s.grade === null)).toBe(true);

    // The same span with only the 4th day changed: days before it keep their stored score.
    await mark();
    const changed = first.map((l) => (l.includes(',2025-02-04,') ? line('2025-02-04', 9000) : l));
    const again = await importMetrics(t.ctx, changed.join('\n'), 'csv');
    const after = await scores();
    expect(after.filter((s) => s.day < '2025-02-04').every((s) => s.grade === null)).toBe(true);
    const rescored = after.filter((s) => s.day >= '2025-02-04');
    expect(rescored.length).toBeGreaterThan(0);
    expect(rescored.every((s) => s.formula_version === CURRENT_FORMULA && s.grade !== null)).toBe(true);
    expect(again.dailyScores).toBe(rescored.length);
  });

  it('refuses files with unknown CSV columns, and dry runs write nothing', async () => {
    const ws = await createWorkspace(t.db, { name: 'Dry', plan: 'pro' });
    await expect(importMetrics(t.ctx, `${HEADER},folowers\n`, 'csv')).rejects.toMatchObject({
      kind: 'invalid_parameter',
      details: { parameter: 'file' },
    });
    await expect(importMetrics(t.ctx, `${HEADER},folowers\n`, 'csv')).rejects.toThrow(
      /line 1: unknown column folowers/,
    );
    const dry = await importMetrics(
      t.ctx,
      `${HEADER}\n${ws.id},facebook,2025-01-01,5,0,0,0,0,0,0,0\n`,
      'csv',
      { dryRun: true },
    );
    expect(dry).toMatchObject({ rows: 1, rejected: [], committed: false, imported: 0 });
    expect(await snapshotCount(ws.id)).toBe(0);
  });
});

describe('platform sync', () => {
  it('stores connector snapshots, updates followers and last_sync_at, and recomputes daily scores', async () => {
    const server = await fixtureServer([
      ...loadFixture('instagram'),
      ...loadFixture('tiktok'),
      ...loadFixture('youtube'),
    ]);
    try {
      const ws = await createWorkspace(t.db, { name: 'Synced', plan: 'agency' });
      await connectPlatform(t.db, { workspaceId: ws.id, platform: 'instagram', handle: '@acme' });
      await connectPlatform(t.db, { workspaceId: ws.id, platform: 'tiktok', handle: 'acme' });
      await connectPlatform(t.db, { workspaceId: ws.id, platform: 'youtube', handle: '@ghost' });
      const now = new Date('2025-03-04T06:00:00Z');
      t.setNow(now);
      const results = await syncWorkspace(t.ctx, ws.id, {
        since: '2025-03-01',
        until: '2025-03-03',
        baseUrls: {
          instagram: `${server.origin}/${GRAPH_API_VERSION}`,
          tiktok: `${server.origin}/open_api/v1.3`,
          'youtube.data': `${server.origin}/youtube/v3`,
          'youtube.analytics': `${server.origin}/v2`,
        },
        tokens: { instagram: 'ig_token' },
      });
      expect(results).toEqual([
        {
          platform: 'instagram',
          since: '2025-03-01',
          until: '2025-03-03',
          snapshots: 3,
          followers: 10500,
          scoreChanged: false,
          failures: [],
        },
        {
          platform: 'tiktok',
          since: '2025-03-01',
          until: '2025-03-03',
          snapshots: 3,
          followers: 8000,
          scoreChanged: false,
          failures: [],
        },
        { platform: 'youtube', error: 'youtube: no YouTube channel for @ghost' },
      ]);
      // A handle-only Instagram connection: its business account is found through /me/accounts
      // (the Graph API has no lookup by username) and its id kept for the next sync.
      expect(
        server.seen.find((s) => s.path === `/${GRAPH_API_VERSION}/me/accounts`)!.headers.authorization,
      ).toBe('Bearer ig_token');
      const ig = await t.db
        .selectFrom('platform_connections')
        .select('account_id')
        .where('workspace_id', '=', ws.id)
        .where('platform', '=', 'instagram')
        .executeTakeFirstOrThrow();
      expect(ig.account_id).toBe('17841400000000001');
      const snaps = await t.db
        .selectFrom('metric_snapshots')
        .selectAll()
        .where('workspace_id', '=', ws.id)
        .orderBy('platform')
        .orderBy('day')
        .execute();
      expect(snaps.map((s) => [s.platform, s.day, s.followers, s.source])).toEqual([
        // Instagram reports new followers only, not the ones lost: the audience is carried back.
        ['instagram', '2025-03-01', 10500, 'connector'],
        ['instagram', '2025-03-02', 10500, 'connector'],
        ['instagram', '2025-03-03', 10500, 'connector'],
        ['tiktok', '2025-03-01', 7900, 'connector'],
        ['tiktok', '2025-03-02', 7950, 'connector'],
        ['tiktok', '2025-03-03', 8000, 'connector'],
      ]);
      const connections = await t.db
        .selectFrom('platform_connections')
        .select(['platform', 'followers', 'last_sync_at'])
        .where('workspace_id', '=', ws.id)
        .orderBy('platform')
        .execute();
      expect(
        connections.map((c) => [c.platform, c.followers, c.last_sync_at?.toISOString() ?? null]),
      ).toEqual([
        ['instagram', 10500, now.toISOString()],
        ['tiktok', 8000, now.toISOString()],
        ['youtube', 0, null],
      ]);
      // Scores from the first synced day up to "today" (the 4th).
      const daily = await t.db
        .selectFrom('daily_scores')
        .select('day')
        .where('workspace_id', '=', ws.id)
        .where('formula_version', '=', CURRENT_FORMULA)
        .orderBy('day')
        .execute();
      expect(daily.map((d) => d.day)).toEqual(['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04']);

      // A platform that is not connected is refused before any request.
      await expect(syncPlatform(t.ctx, ws.id, 'facebook')).rejects.toThrow('facebook is not connected');
      await expect(syncPlatform(t.ctx, ws.id, 'instagram', { until: '2025-03-10' })).rejects.toThrow(
        'in the future',
      );
    } finally {
      t.setNow(undefined);
      await server.close();
    }
  });
});
