/**
 * The sandbox's metric history is generated from formula v2's reference population, so the demo's
 * grades look like the published shares (issue 16, item 4). Scored here without a database: the
 * sector brands as seeded (planSectorBrands, brandProfile, brandSnapshots), over the sandbox's
 * two years, as of its last day with the 90-day window of an audit.
 */
import { describe, expect, it } from 'vitest';
import { brandProfile, brandSnapshots } from '../../src/sandbox/metrics.ts';
import { HISTORY_DAYS, planSectorBrands } from '../../src/sandbox/seed.ts';
import { scoreWorkspaceV2 } from '../../src/scoring/engine/v2/index.ts';
import { PILLARS } from '../../src/core/catalog.ts';

describe('the sandbox population', () => {
  it('has its median at 50 +/- 3 and grades near the published shares under formula v2', () => {
    const last = '2026-06-30';
    const { brands } = planSectorBrands();
    const rs = brands.map((b) => {
      const profile = brandProfile(b.id, b.sectorPhase);
      const snapshots = b.platforms.flatMap((p) => brandSnapshots(b.id, p, profile, last, HISTORY_DAYS));
      return scoreWorkspaceV2({ snapshots, platforms: b.platforms, asOf: last, lookbackDays: 90 });
    });
    const n = rs.length;
    expect(n).toBe(525);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
    expect(Math.abs(median(rs.map((r) => r.score)) - 50)).toBeLessThanOrEqual(3);
    for (const k of PILLARS)
      expect(Math.abs(median(rs.map((r) => r.pillars[k])) - 50), k).toBeLessThanOrEqual(3);
    // Wider than the reference population's test: 525 brands, two-platform workspaces average
    // their platforms, and the yearly season moves views by up to 15%.
    const share = (g: string) => rs.filter((r) => r.grade === g).length / n;
    const shares = Object.fromEntries(
      ['elite', 'strong', 'moderate', 'weak', 'critical'].map((g) => [g, share(g)]),
    );
    expect(Math.abs(shares.elite! - 0.05), JSON.stringify(shares)).toBeLessThanOrEqual(0.03);
    expect(Math.abs(shares.strong! - 0.2), JSON.stringify(shares)).toBeLessThanOrEqual(0.06);
    expect(Math.abs(shares.moderate! - 0.5), JSON.stringify(shares)).toBeLessThanOrEqual(0.08);
    expect(Math.abs(shares.weak! - 0.2), JSON.stringify(shares)).toBeLessThanOrEqual(0.06);
    expect(Math.abs(shares.critical! - 0.05), JSON.stringify(shares)).toBeLessThanOrEqual(0.03);
  });
});
