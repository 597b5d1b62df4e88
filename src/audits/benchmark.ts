// The audit's industry benchmark, derived ONLY from published TACSI statistics (docs/privacy.md):
// `industry_average` is the indexValue of the sector's latest published weekly cell and `percentile`
// is read off the sector's latest published peer-distribution histogram. Both are differentially
// private releases that any number of audits may reuse at no further privacy cost (post-processing);
// no raw score of another tenant is read here. Where the sector has nothing published (or nothing this
// tenant may be shown), the fields are null and `basis` says why, never a figure computed from raw
// scores. A sector held exclusively answers exactly as an unpublished one: the benchmark must not tell
// anyone whether a sector is licensed exclusively (docs/privacy.md section 6).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { addDays } from '../core/days.ts';
import {
  TACSI_M2,
  percentileFromHistogram,
  percentileIntervalFromHistogram,
} from '../tacsi/privacy/index.ts';
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
  /**
   * Nothing to show: no weekly cell in the last COHORT_RECENCY_DAYS (fewer than 50 brands, or not yet
   * published), or the sector's index is licensed exclusively (the same answer, so it tells neither).
   */
  | 'not_published'
  /** Average published; the peer distribution is of a cohort below band 100, too noisy for a percentile. */
  | 'coarse_distribution'
  /** Stored before benchmarks came from published statistics (raw peer scores): withdrawn. */
  | 'legacy_withdrawn';

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
  /** 95% interval of the percentile from the histogram's noise law; null without a percentile. */
  percentile_interval: { low: number; high: number } | null;
  /** The percentile is reported on this grid (the histogram is coarse; finer would be false precision). */
  percentile_granularity: number;
}

export interface IndustryBenchmark {
  your_score: number;
  industry_average: number | null;
  percentile: number | null;
  /** Why the fields are what they are (every served benchmark has one). */
  basis: BenchmarkBasis;
}

/** A published cell or histogram counts only when it is this recent: a stale figure is no benchmark. */
export const COHORT_RECENCY_DAYS = 90;
export const PERCENTILE_GRANULARITY = 5;
/** Below this band floor the histogram's noise (about +/-15 percentile points at band 50) hides the position. */
export const PERCENTILE_MIN_BAND = 100;

const REASONS: Record<BenchmarkStatus, string> = {
  published:
    'industry_average is the sector’s latest published TACSI weekly index; percentile is read from its latest published peer distribution.',
  no_distribution:
    'industry_average is the sector’s latest published TACSI weekly index; its peer distribution (published monthly) is not available yet.',
  no_sector: 'The workspace has no sector, so there is no peer group to compare with.',
  not_consumer_sector:
    'The workspace’s sector is not a consumer sector; no sector statistics are published for it.',
  not_published:
    'No sector statistic can be shown: none has been published recently (sectors with fewer than 50 brands are never published), or it is not shown outside its licence.',
  coarse_distribution:
    'industry_average is the sector’s latest published TACSI weekly index; its peer distribution is of fewer than 100 brands, too noisy for a percentile.',
  legacy_withdrawn:
    'This benchmark was computed before benchmarks came only from published TACSI statistics; it is withdrawn.',
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
    percentile_interval: null,
    percentile_granularity: PERCENTILE_GRANULARITY,
    ...extra,
  };
}

/**
 * The benchmark an audit answer carries, from what was stored at completion: a benchmark stored
 * without `basis` was computed from raw peer scores and is withdrawn; one stored with the former
 * `exclusive_sector` status answers as `not_published`, as new audits do.
 */
export function servedBenchmark(stored: unknown, score: number): IndustryBenchmark {
  const b = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Partial<IndustryBenchmark> | null;
  const yourScore = typeof b?.your_score === 'number' ? b.your_score : score;
  const status = b?.basis?.status as string | undefined;
  if (!b || !b.basis || status === 'legacy_withdrawn')
    return {
      your_score: yourScore,
      industry_average: null,
      percentile: null,
      basis: basis('legacy_withdrawn', null),
    };
  if (status === 'exclusive_sector')
    return {
      your_score: yourScore,
      industry_average: null,
      percentile: null,
      basis: basis('not_published', b.basis.sector),
    };
  // Benchmarks stored before percentile intervals existed carry none.
  return {
    ...b,
    basis: { ...b.basis, percentile_interval: b.basis.percentile_interval ?? null },
  } as IndustryBenchmark;
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
    h_band_floor: number | null;
    edges: number[] | null;
    shares: number[] | null;
  }>`
    SELECT s.is_consumer,
           EXISTS (SELECT 1 FROM tacsi_entitlements e
                    WHERE e.sector_slug = s.slug AND e.exclusive AND e.revoked_at IS NULL
                      AND e.valid_from <= ${asOf}::date AND (e.valid_until IS NULL OR e.valid_until >= ${asOf}::date)
                  ) AS exclusive,
           c.period_end, c.methodology_version, c.index_value, c.cohort_band, c.moe_index_value,
           h.period_end AS h_period_end, h.band_floor AS h_band_floor, h.edges, h.shares
      FROM sectors s
      LEFT JOIN LATERAL (
        SELECT period_end, methodology_version, index_value, cohort_band, moe_index_value FROM tacsi_cells
         WHERE sector = s.slug AND cadence = 'weekly' AND period_end BETWEEN ${since}::date AND ${asOf}::date
         ORDER BY period_end DESC, published_at DESC LIMIT 1
      ) c ON true
      LEFT JOIN LATERAL (
        SELECT period_end, band_floor, edges, shares FROM tacsi_histograms
         WHERE sector = s.slug AND period_end BETWEEN ${since}::date AND ${asOf}::date
         ORDER BY period_end DESC LIMIT 1
      ) h ON true
     WHERE s.slug = ${sector}
  `.execute(db);
  const row = result.rows[0];
  if (!row || !row.is_consumer) return none('not_consumer_sector');
  // An exclusive licence answers exactly as an unpublished sector (same status, reason and fields).
  if (row.exclusive || row.period_end === null || row.index_value === null) return none('not_published');
  const margin = cellMargins({
    methodology_version: row.methodology_version!,
    moe_index_value: row.moe_index_value,
  }).indexValue;
  const histogram =
    row.edges !== null && row.shares !== null && row.h_band_floor !== null
      ? { edges: row.edges, shares: row.shares, bandFloor: row.h_band_floor }
      : null;
  const readable = histogram !== null && histogram.bandFloor >= PERCENTILE_MIN_BAND;
  const status: BenchmarkStatus =
    histogram === null ? 'no_distribution' : readable ? 'published' : 'coarse_distribution';
  return {
    your_score: score,
    industry_average: row.index_value,
    percentile: readable ? percentileFromHistogram(score, histogram, PERCENTILE_GRANULARITY) : null,
    basis: basis(status, sector, {
      period_end: row.period_end,
      methodology_version: row.methodology_version,
      cohort_band: row.cohort_band,
      margin_of_error: margin,
      distribution_period_end: row.h_period_end,
      percentile_interval: readable
        ? percentileIntervalFromHistogram(
            score,
            histogram,
            histogram.bandFloor,
            TACSI_M2,
            PERCENTILE_GRANULARITY,
          )
        : null,
    }),
  };
}
