// GET /v1/tacsi/corrections: every correction of a sector's cells, newest first. A correction is a
// later vintage of a published cell (correct.ts); the feed lists which cell, which vintage, why and
// when, never a value: the values are in the feeds, which serve the latest vintage.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { isCalendarDay, parseIsoInstant } from '../core/days.ts';
import type { CorrectionsFeedBody } from './schemas.ts';

export const CORRECTIONS_PAGE_MAX = 100;

/** The position after which a page continues: the last entry of the previous page. */
export interface CorrectionsCursor {
  publishedAt: string;
  feed: 'weekly' | 'daily';
  periodEnd: string;
  vintage: number;
}

export function encodeCursor(c: CorrectionsCursor): string {
  return Buffer.from(JSON.stringify([c.publishedAt, c.feed, c.periodEnd, c.vintage])).toString('base64url');
}

/** The cursor of a `nextCursor`, or null when it is not one. */
export function decodeCursor(raw: string): CorrectionsCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString());
    if (!Array.isArray(v) || v.length !== 4) return null;
    const [publishedAt, feed, periodEnd, vintage] = v as unknown[];
    const published = typeof publishedAt === 'string' ? parseIsoInstant(publishedAt) : null;
    if (published === null) return null;
    if (feed !== 'weekly' && feed !== 'daily') return null;
    if (typeof periodEnd !== 'string' || !isCalendarDay(periodEnd)) return null;
    if (typeof vintage !== 'number' || !Number.isInteger(vintage) || vintage < 2) return null;
    return { publishedAt: published.instant.toISOString(), feed, periodEnd, vintage };
  } catch {
    return null;
  }
}

/**
 * One page of the sector's corrections, newest first; daily cells' corrections only when `daily` (the
 * caller may read the daily feed).
 */
export async function correctionsFeed(
  db: Kysely<DB>,
  sector: string,
  options: { daily: boolean; after?: CorrectionsCursor },
): Promise<CorrectionsFeedBody> {
  let q = db
    .selectFrom('tacsi_cells')
    .select(['cadence', 'period_end', 'vintage', 'correction_reason', 'published_at'])
    .where('sector', '=', sector)
    .where('vintage', '>', 1);
  if (!options.daily) q = q.where('cadence', '=', 'weekly');
  const after = options.after;
  if (after)
    q = q.where(
      sql<boolean>`(published_at, cadence, period_end, vintage) < (${new Date(after.publishedAt)}::timestamptz, ${after.feed}, ${after.periodEnd}::date, ${after.vintage})`,
    );
  const rows = await q
    .orderBy('published_at', 'desc')
    .orderBy('cadence', 'desc')
    .orderBy('period_end', 'desc')
    .orderBy('vintage', 'desc')
    .limit(CORRECTIONS_PAGE_MAX + 1)
    .execute();
  const hasMore = rows.length > CORRECTIONS_PAGE_MAX;
  const corrections = rows.slice(0, CORRECTIONS_PAGE_MAX).map((r) => ({
    sector,
    feed: r.cadence,
    periodEnd: r.period_end,
    vintage: r.vintage,
    reason: r.correction_reason ?? '',
    publishedAt: new Date(r.published_at).toISOString(),
  }));
  const last = corrections.at(-1);
  return {
    sector,
    count: corrections.length,
    pageMax: CORRECTIONS_PAGE_MAX,
    hasMore,
    nextCursor: hasMore && last ? encodeCursor(last) : null,
    corrections,
  };
}
