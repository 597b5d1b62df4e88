/**
 * The simulator's synthetic accounts are steady, typical accounts (src/simulator/accounts.ts): their
 * days, gathered the way the connectors gather a platform's answers (DayBook: counts per day, each
 * comment and mention classified by the default sentiment model, audience rebuilt from daily
 * changes), score in formula v2's moderate band. Before, every account scored by rules of thumb
 * unrelated to the v2 baselines: 29 to 65 across platforms, most of them weak or critical.
 */
import { describe, expect, it } from 'vitest';
import { SyntheticAccount } from '../../src/simulator/accounts.ts';
import { DayBook } from '../../src/ingest/connectors/daybook.ts';
import { COMPOSITE_GRADE_CUTOFFS_V2, scoreWorkspaceV2 } from '../../src/scoring/engine/v2/index.ts';
import { addDays } from '../../src/core/days.ts';
import { PLATFORMS, type Platform } from '../../src/core/catalog.ts';

const LAST = '2026-06-10';

function snapshots(platform: Platform, handle: string, days: number) {
  const account = new SyntheticAccount(platform, handle);
  const range = { since: addDays(LAST, -(days - 1)), until: LAST };
  const book = new DayBook(range);
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

describe('a synthetic account of the simulator', () => {
  it.each(PLATFORMS)('on %s is a typical account: moderate under formula v2, no flag', (platform) => {
    const c = COMPOSITE_GRADE_CUTOFFS_V2;
    for (const handle of ['acme', 'steady', 'grow', 'northwind', 'shop']) {
      const r = scoreWorkspaceV2({
        snapshots: snapshots(platform, handle, 120),
        platforms: [platform],
        asOf: LAST,
        lookbackDays: 90,
      });
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
});
