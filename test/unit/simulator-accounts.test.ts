/**
 * The simulator's synthetic accounts are steady, typical accounts (simulator/accounts.ts): their
 * own days, gathered into snapshots the way the connectors gather a platform's answers (DayBook:
 * counts per day, each comment and mention classified by the default sentiment model, audience
 * rebuilt from daily changes), score in formula v2's moderate band. Read through their platform's
 * connector from the simulator's API, they score within a few points of that: the connectors see
 * what the real APIs give (Instagram and Facebook a post's lifetime likes and comments on its day,
 * X per-post metrics and no follower history), and v2 reads engagement dated on the post day
 * (docs/scoring.md, "Engagement dated on the post day").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyntheticAccount } from '../../simulator/accounts.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { ApiClient, CONNECTORS } from '../../src/ingest/connectors/index.ts';
import { DayBook } from '../../src/ingest/connectors/daybook.ts';
import { platformEndpoints } from '../../src/platforms/oauth-config.ts';
import { loadConfig } from '../../src/infra/config.ts';
import {
  COMPOSITE_GRADE_CUTOFFS_V2,
  scoreWorkspaceV2,
  type WorkspaceScoreV2,
} from '../../src/scoring/engine/v2/index.ts';
import { addDays } from '../../src/core/days.ts';
import { PLATFORMS, type Platform } from '../../src/core/catalog.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

const LAST = '2026-06-10';
const DAYS = 120;
const RANGE = { since: addDays(LAST, -(DAYS - 1)), until: LAST };
const HANDLES = ['acme', 'steady', 'grow', 'northwind', 'shop'];

/** The account's own days: every metric on the day it happened. */
function ownSnapshots(platform: Platform, handle: string): DailySnapshot[] {
  const account = new SyntheticAccount(platform, handle);
  const book = new DayBook(RANGE);
  for (const day of book.days) {
    const m = account.metrics(day);
    book.add(day, 'posts', m.posts.length);
    for (const f of ['impressions', 'likes', 'comments', 'shares', 'saves'] as const) book.add(day, f, m[f]);
    book.add(day, 'mentions', m.mentions.length);
    for (const c of [...m.commentTexts, ...m.mentions]) book.addText(day, c.text);
    book.addNetFollowers(day, m.followers - account.followersOn(addDays(day, -1)));
  }
  return book.snapshots(platform, account.followersOn(LAST), 1);
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: LAST });
});
afterAll(() => sim?.close());

/** The account through its platform's connector, reading the simulator's API on LAST. */
async function connectorSnapshots(platform: Platform, handle: string): Promise<DailySnapshot[]> {
  const connector = CONNECTORS[platform];
  const api = new ApiClient({
    platform,
    baseUrls: platformEndpoints(loadConfig({ SIMULATOR_URL: sim.url }), platform).apiBaseUrls,
    headers: connector.authHeaders(sim.issueTokens(platform, handle).access_token),
    timeoutMs: 10_000,
    maxBytes: 20_000_000,
    fetch,
  });
  const accountId = platform === 'instagram' ? `ig_${handle}` : null;
  return (await connector.fetchSnapshots(api, { handle, accountId }, RANGE)).snapshots;
}

function score(platform: Platform, snapshots: DailySnapshot[]): WorkspaceScoreV2 {
  return scoreWorkspaceV2({ snapshots, platforms: [platform], asOf: LAST, lookbackDays: 90 });
}

describe('a synthetic account of the simulator', () => {
  it.each(PLATFORMS)('on %s is a typical account: moderate under formula v2, no flag', (platform) => {
    const c = COMPOSITE_GRADE_CUTOFFS_V2;
    for (const handle of HANDLES) {
      const r = score(platform, ownSnapshots(platform, handle));
      const what = `${platform} @${handle}: ${r.score} ${JSON.stringify(r.pillars)}`;
      expect(r.grade, what).toBe('moderate');
      // Inside the band, not on its edge: within 3 points of 50 (the median account).
      expect(r.score, what).toBeGreaterThanOrEqual(Math.max(c.moderate, 47));
      expect(r.score, what).toBeLessThanOrEqual(Math.min(c.strong - 0.1, 53));
      expect(r.authenticityFlags, what).toEqual([]);
      for (const [pillar, value] of Object.entries(r.pillars))
        expect(Math.abs(value - 50), `${what} ${pillar}`).toBeLessThanOrEqual(12);
    }
  });

  it.each(PLATFORMS)(
    'on %s scores through its connector as from its own days, with no flag',
    async (platform) => {
      for (const handle of HANDLES) {
        const own = score(platform, ownSnapshots(platform, handle));
        const through = score(platform, await connectorSnapshots(platform, handle));
        const what = `${platform} @${handle}: own ${own.score} ${JSON.stringify(own.pillars)}, connector ${through.score} ${JSON.stringify(through.pillars)}`;
        // The rest is what each connector can read from its platform: Instagram's daily views only for
        // the last 30 days (Graph's limit: older days hold only the views of their posts among the newest
        // 40, so reach over this 120-day range reads about 11 points lower, measured 3.1 on the score for
        // @shop) and its audience as gains only; no follower history on X (growth reads flat, reach
        // about 10 points lower); TikTok's 60 days of daily metrics. Measured within 2.5 elsewhere.
        expect(Math.abs(through.score - own.score), what).toBeLessThanOrEqual(
          platform === 'instagram' ? 4 : 3,
        );
        expect(Math.abs(through.pillars.impact - own.pillars.impact), what).toBeLessThanOrEqual(3);
        expect(Math.abs(through.pillars.momentum - own.pillars.momentum), what).toBeLessThanOrEqual(3);
        expect(through.authenticityFlags, what).toEqual([]);
      }
    },
  );
});
