import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { addDays } from '../scoring/days.ts';
import { round1 } from '../scoring/engine/index.ts';

export interface IndustryBenchmark {
  your_score: number;
  industry_average: number;
  percentile: number;
}

/** A peer's stored score counts only when it is this recent: stale accounts do not set the bar. */
export const COHORT_RECENCY_DAYS = 90;

/**
 * Percentile rank of `score` among `peers`: the share of peers below it, ties counting half
 * (the mid-rank definition), as an integer 0-100. With no peers the workspace is its own
 * cohort: average = its score, percentile 50.
 */
export function benchmarkAgainst(score: number, peers: readonly number[]): IndustryBenchmark {
  if (peers.length === 0) return { your_score: score, industry_average: score, percentile: 50 };
  let below = 0;
  let equal = 0;
  let sum = 0;
  for (const p of peers) {
    sum += p;
    if (p < score) below++;
    else if (p === score) equal++;
  }
  return {
    your_score: score,
    industry_average: round1(sum / peers.length),
    percentile: Math.round((100 * (below + equal / 2)) / peers.length),
  };
}

/**
 * The cohort: every other workspace in the same sector (every other workspace at all when the
 * workspace has no sector), each represented by its latest stored daily score of the last
 * COHORT_RECENCY_DAYS days. Read from daily_scores, never recomputed.
 */
export async function cohortScores(
  db: Kysely<DB>,
  workspace: { id: string; sector_slug: string | null },
  asOf: string,
): Promise<number[]> {
  const since = addDays(asOf, -(COHORT_RECENCY_DAYS - 1));
  // With a sector, start from its workspaces (workspaces_sector_idx) and read each one's latest
  // score by the (workspace_id, day) key: the cost follows the sector, not the daily_scores table.
  // Peers stay in workspace id order either way, so the average sums in the same order.
  const result = workspace.sector_slug
    ? await sql<{ score: number }>`
        SELECT d.score
        FROM workspaces w
        CROSS JOIN LATERAL (
          SELECT score FROM daily_scores
          WHERE workspace_id = w.id AND day BETWEEN ${since} AND ${asOf}
          ORDER BY day DESC
          LIMIT 1
        ) d
        WHERE w.sector_slug = ${workspace.sector_slug} AND w.id <> ${workspace.id}
        ORDER BY w.id
      `.execute(db)
    : await sql<{ score: number }>`
        SELECT DISTINCT ON (d.workspace_id) d.score
        FROM daily_scores d
        WHERE d.workspace_id <> ${workspace.id} AND d.day BETWEEN ${since} AND ${asOf}
        ORDER BY d.workspace_id, d.day DESC
      `.execute(db);
  return result.rows.map((r) => Number(r.score));
}

export async function industryBenchmark(
  db: Kysely<DB>,
  workspace: { id: string; sector_slug: string | null },
  score: number,
  asOf: string,
): Promise<IndustryBenchmark> {
  return benchmarkAgainst(score, await cohortScores(db, workspace, asOf));
}
