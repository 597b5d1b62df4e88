// Bulk delivery of a licensed sector's whole weekly archive, and the coverage list. The archive is the
// sector's published weekly cells, oldest first, as one download: CSV (the history feed's columns) or
// Apache Parquet (the same columns, written by hyparquet-writer). Both are functions of the archive's
// JSON body, so their validators derive from its ETag (feed-cache.ts). Only published cells are read.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { historyFeed, type TacsiCell } from './feeds.ts';
import type { CoverageFeedBody } from './schemas.ts';
import type { LicensedSector } from './entitlements.ts';
import { WITHDRAWN } from './methodology-feed.ts';

export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';

/** The archive's cached JSON body, from which both download formats are written. */
export interface TacsiArchive {
  sector: string;
  rows: TacsiCell[];
}

/** Every published weekly cell of the sector, oldest first (the history feed's rows, all pages). */
export async function archiveFeed(db: Kysely<DB>, sector: string): Promise<TacsiArchive> {
  const rows: TacsiCell[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await historyFeed(db, sector, { before });
    rows.push(...page.rows);
    if (!page.hasMore || !page.nextBefore) break;
    before = page.nextBefore;
  }
  return { sector, rows: rows.reverse() };
}

/**
 * The archive as Parquet: one row per cell, the CSV's columns, dates and instants as ISO strings. The
 * writer is loaded on the first Parquet download, not at start-up.
 */
export async function archiveParquet(rows: readonly TacsiCell[]): Promise<Uint8Array> {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const num = (name: string, pick: (c: TacsiCell) => number | null) => ({
    name,
    data: rows.map(pick),
    type: 'DOUBLE' as const,
  });
  const str = (name: string, pick: (c: TacsiCell) => string) => ({
    name,
    data: rows.map(pick),
    type: 'STRING' as const,
  });
  const buffer = parquetWriteBuffer({
    columnData: [
      str('periodEnd', (c) => c.periodEnd),
      num('indexValue', (c) => c.indexValue),
      num('delta', (c) => c.delta),
      num('pillars.impact', (c) => c.pillars.impact),
      num('pillars.momentum', (c) => c.pillars.momentum),
      num('pillars.presence', (c) => c.pillars.presence),
      num('pillars.reach', (c) => c.pillars.reach),
      num('pillars.sentiment', (c) => c.pillars.sentiment),
      str('cohortBand', (c) => c.cohortBand),
      str('methodologyVersion', (c) => c.methodologyVersion),
      num('marginOfError.indexValue', (c) => c.marginOfError.indexValue),
      num('marginOfError.pillars', (c) => c.marginOfError.pillars),
      str('publishedAt', (c) => c.publishedAt),
      { name: 'vintage', data: rows.map((c) => c.vintage), type: 'INT32' as const },
    ],
  });
  return new Uint8Array(buffer);
}

/** First and last published periods and the band history of each sector the key may read. */
export async function coverageFeed(
  db: Kysely<DB>,
  licensed: readonly LicensedSector[],
): Promise<CoverageFeedBody['sectors']> {
  const slugs = licensed.map((s) => s.slug);
  if (slugs.length === 0) return [];
  const withdrawn = Object.entries(WITHDRAWN).flatMap(([version, list]) =>
    list.map((w) => `${w.sector}|${version}`),
  );
  // One row per period: its latest vintage (a correction may change the band).
  const rows = await sql<{
    sector: string;
    cadence: 'weekly' | 'daily';
    period_end: string;
    cohort_band: string;
  }>`
    SELECT DISTINCT ON (sector, cadence, period_end)
           sector, cadence, period_end::text AS period_end, cohort_band FROM tacsi_cells
     WHERE sector = ANY(${slugs}::text[])
       AND NOT (sector || '|' || methodology_version = ANY(${withdrawn}::text[]))
     ORDER BY sector, cadence, period_end, vintage DESC
  `.execute(db);
  return licensed.map((s) => {
    const mine = rows.rows.filter((r) => r.sector === s.slug);
    const span = (cadence: 'weekly' | 'daily') => {
      const list = mine.filter((r) => r.cadence === cadence);
      return list.length
        ? { first: list[0]!.period_end, last: list.at(-1)!.period_end, count: list.length }
        : null;
    };
    const bands: CoverageFeedBody['sectors'][number]['bands'] = [];
    for (const r of mine.filter((x) => x.cadence === 'weekly')) {
      const last = bands.at(-1);
      if (last && last.cohortBand === r.cohort_band) last.to = r.period_end;
      else bands.push({ cohortBand: r.cohort_band, from: r.period_end, to: r.period_end });
    }
    return {
      slug: s.slug,
      weekly: span('weekly'),
      daily: s.feeds.includes('daily') ? span('daily') : null,
      bands,
    };
  });
}
