// The audit's industry benchmark, derived ONLY from published TACSI statistics (docs/privacy.md):
// `industry_average` is the indexValue of the sector's latest published weekly cell and `percentile`
// is read off the sector's latest published peer-distribution histogram. Both are differentially
// private releases that any number of audits may reuse at no further privacy cost (post-processing);
// no raw score of another tenant is read here. Where the sector has nothing published, the fields
// are null and `basis` says why, never a figure computed from raw scores.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { addDays } from '../core/days.ts';
import { percentileFromHistogram } from '../tacsi/privacy/index.ts';
import { cellMargins } from '../tacsi/margins.ts';

/** Why a benchmark field is what it is (an extension of the spec's benchmark object). */
export type BenchmarkStatus =
  /** Average and percentile both from published statistics. */
  | 'published'
  /** Average published; the sector's peer distribution is not published yet (monthly release). */
  | 'no_distribution'
  /** The workspace has no sector: there is no peer group. */
  | 'no_sector'
  /** The sector is not a consumer sector: TACSI publishes nothing for it. */
  | 'not_consumer_sector'
  /** No weekly cell in the last COHORT_RECENCY_DAYS (fewer than 50 brands, or not yet published). */
  | 'not_published'
  /** The sector's index is licensed exclusively to one subscriber: not shown to anyone else. */
  | 'exclusive_sector';

export interface BenchmarkBasis {
  status: BenchmarkStatus;
  reason: string;
  sector: string | null;
  /** The weekly cell the average is; null when none. */
  period_end: string | null;
  methodology_version: string | null;
  cohort_band: string | null;
  /** 95% margin of error of industry_average (the published cell's). */
  margin_of_error: number | null;
  /** The histogram the percentile is read from; null when none. */
  distribution_period_end: string | null;
  /** The percentile is reported on this grid (the histogram is coarse; finer would be false precision). */
  percentile_granularity: number;
}

export interface IndustryBenchmark {
  your_score: number;
  industry_average: number | null;
  percentile: number | null;
  /** Present on audits completed under the published-statistics benchmark (absent on older audits). */
  basis?: BenchmarkBasis;
}

/** A published cell or histogram counts only when it is this recent: a stale figure is no benchmark. */
export const COHORT_RECENCY_DAYS = 90;
export const PERCENTILE_GRANULARITY = 5;

const REASONS: Record<BenchmarkStatus, string> = {
  published:
    'industry_average is the sector’s latest published TACSI weekly index; percentile is read from its latest published peer distribution.',
  no_distribution:
    'industry_average is the sector’s latest published TACSI weekly index; its peer distribution (published monthly) is not available yet.',
  no_sector: 'The workspace has no sector, so there is no peer group to compare with.',
  not_consumer_sector:
    'The workspace’s sector is not a consumer sector; no sector statistics are published for it.',
  not_published:
    'No sector statistic has been published recently (sectors with fewer than 50 brands are never published).',
  exclusive_sector:
    'The sector’s index is licensed exclusively; its statistics are not shown outside that licence.',
};

function basis(
  status: BenchmarkStatus,
  sector: string | null,
  extra: Partial<BenchmarkBasis> = {},
): BenchmarkBasis {
  return {
    status,
    reason: REASONS[status],
    sector,
    period_end: null,
    methodology_version: null,
    cohort_band: null,
    margin_of_error: null,
    distribution_period_end: null,
    percentile_granularity: PERCENTILE_GRANULARITY,
    ...extra,
  };
}

/**
 * The benchmark of an audit score: one query reads the sector's kind, any active exclusive licence,
 * its latest weekly cell and its latest histogram (all public or published facts).
 */
export async function industryBenchmark(
  db: Kysely<DB>,
  workspace: { id: string; sector_slug: string | null },
  score: number,
  asOf: string,
): Promise<IndustryBenchmark> {
  const sector = workspace.sector_slug;
  const none = (status: BenchmarkStatus): IndustryBenchmark => ({
    your_score: score,
    industry_average: null,
    percentile: null,
    basis: basis(status, sector),
  });
  if (!sector) return none('no_sector');
  const since = addDays(asOf, -(COHORT_RECENCY_DAYS - 1));
  const result = await sql<{
    is_consumer: boolean;
    exclusive: boolean;
    period_end: string | null;
    methodology_version: string | null;
    index_value: number | null;
    cohort_band: string | null;
    moe_index_value: number | null;
    h_period_end: string | null;
    edges: number[] | null;
    shares: number[] | null;
  }>`
    SELECT s.is_consumer,
           EXISTS (SELECT 1 FROM tacsi_entitlements e
                    WHERE e.sector_slug = s.slug AND e.exclusive AND e.revoked_at IS NULL
                      AND e.valid_from <= ${asOf}::date AND (e.valid_until IS NULL OR e.valid_until >= ${asOf}::date)
                  ) AS exclusive,
           c.period_end, c.methodology_version, c.index_value, c.cohort_band, c.moe_index_value,
           h.period_end AS h_period_end, h.edges, h.shares
      FROM sectors s
      LEFT JOIN LATERAL (
        SELECT period_end, methodology_version, index_value, cohort_band, moe_index_value FROM tacsi_cells
         WHERE sector = s.slug AND cadence = 'weekly' AND period_end BETWEEN ${since}::date AND ${asOf}::date
         ORDER BY period_end DESC, published_at DESC LIMIT 1
      ) c ON true
      LEFT JOIN LATERAL (
        SELECT period_end, edges, shares FROM tacsi_histograms
         WHERE sector = s.slug AND period_end BETWEEN ${since}::date AND ${asOf}::date
         ORDER BY period_end DESC LIMIT 1
      ) h ON true
     WHERE s.slug = ${sector}
  `.execute(db);
  const row = result.rows[0];
  if (!row || !row.is_consumer) return none('not_consumer_sector');
  if (row.exclusive) return none('exclusive_sector');
  if (row.period_end === null || row.index_value === null) return none('not_published');
  const margin = cellMargins({
    methodology_version: row.methodology_version!,
    moe_index_value: row.moe_index_value,
  }).indexValue;
  const hasHistogram = row.edges !== null && row.shares !== null;
  return {
    your_score: score,
    industry_average: row.index_value,
    percentile: hasHistogram
      ? percentileFromHistogram(score, { edges: row.edges!, shares: row.shares! }, PERCENTILE_GRANULARITY)
      : null,
    basis: basis(hasHistogram ? 'published' : 'no_distribution', sector, {
      period_end: row.period_end,
      methodology_version: row.methodology_version,
      cohort_band: row.cohort_band,
      margin_of_error: margin,
      distribution_period_end: row.h_period_end,
    }),
  };
}
