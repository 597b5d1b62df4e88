// Fixture data for the TACSI API tests: consumer sectors of brand workspaces with daily scores,
// inserted directly with multi-row inserts (fast on PGlite).
import type { Insertable, Kysely } from 'kysely';
import { createSector } from '../../src/admin/workspaces.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { newId } from '../../src/infra/ids.ts';
import { addDays } from '../../src/core/days.ts';

export interface FixtureSector {
  slug: string;
  brands: number;
  consumer?: boolean;
  /** Base level of the sector's scores. */
  level: number;
}

export interface FixtureWorkspace {
  id: string;
  name: string;
  sector: string;
  handle: string;
  accountType: 'brand' | 'creator';
}

export interface TacsiFixture {
  workspaces: FixtureWorkspace[];
  /** Every score row inserted, by workspace id then day. */
  scores: Map<
    string,
    Map<
      string,
      { score: number; presence: number; reach: number; impact: number; sentiment: number; momentum: number }
    >
  >;
}

const PILLAR_OFFSETS = { presence: -8, reach: 4, impact: 10, sentiment: -3, momentum: 6 } as const;

async function insertChunked<T>(rows: T[], size: number, insert: (chunk: T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}

/** A deterministic score for a workspace on a day, kept inside [0, 100]. */
export function fixtureScore(level: number, index: number, dayIndex: number): number {
  const raw = level + ((index * 7) % 21) - 10 + 4 * Math.sin(dayIndex / 3 + index);
  return Math.round(Math.min(100, Math.max(0, raw)) * 100) / 100;
}

/**
 * Creates the sectors, one brand workspace per `brands` (plus one creator per sector, which no cohort
 * may include), an instagram connection each, and a daily score for every day in [firstDay, lastDay].
 */
export async function seedTacsiFixture(
  db: Kysely<DB>,
  sectors: readonly FixtureSector[],
  firstDay: string,
  lastDay: string,
): Promise<TacsiFixture> {
  const workspaces: FixtureWorkspace[] = [];
  for (const s of sectors) {
    await createSector(db, s.slug, `Sector ${s.slug}`, s.consumer ?? true);
    for (let i = 0; i <= s.brands; i++) {
      const token = Math.random().toString(36).slice(2, 10);
      workspaces.push({
        id: newId('ws'),
        name: `Brandname ${token} ${s.slug}`,
        sector: s.slug,
        handle: `@handle_${token}`,
        accountType: i === s.brands ? 'creator' : 'brand',
      });
    }
  }
  await insertChunked(workspaces, 500, (chunk) =>
    db
      .insertInto('workspaces')
      .values(
        chunk.map((w) => ({
          id: w.id,
          name: w.name,
          plan: 'pro',
          sector_slug: w.sector,
          account_type: w.accountType,
        })),
      )
      .execute(),
  );
  await insertChunked(workspaces, 500, (chunk) =>
    db
      .insertInto('platform_connections')
      .values(
        chunk.map((w) => ({ id: newId('pc'), workspace_id: w.id, platform: 'instagram', handle: w.handle })),
      )
      .execute(),
  );

  const scores: TacsiFixture['scores'] = new Map();
  const rows: Insertable<DB['daily_scores']>[] = [];
  const levelOf = new Map(sectors.map((s) => [s.slug, s.level]));
  const perSectorIndex = new Map<string, number>();
  for (const w of workspaces) {
    const index = perSectorIndex.get(w.sector) ?? 0;
    perSectorIndex.set(w.sector, index + 1);
    const byDay = new Map<
      string,
      { score: number; presence: number; reach: number; impact: number; sentiment: number; momentum: number }
    >();
    scores.set(w.id, byDay);
    for (let d = 0, day = firstDay; day <= lastDay; d++, day = addDays(day, 1)) {
      const score = fixtureScore(levelOf.get(w.sector)!, index, d);
      const clamp = (x: number) => Math.round(Math.min(100, Math.max(0, x)) * 100) / 100;
      const values = {
        score,
        presence: clamp(score + PILLAR_OFFSETS.presence),
        reach: clamp(score + PILLAR_OFFSETS.reach),
        impact: clamp(score + PILLAR_OFFSETS.impact),
        sentiment: clamp(score + PILLAR_OFFSETS.sentiment),
        momentum: clamp(score + PILLAR_OFFSETS.momentum),
      };
      byDay.set(day, values);
      // A deployment after the formula v2 recompute: the v1 rows tacsi-m1 reads and the v2 rows tacsi-m2
      // reads (the same values here; test/api/tacsi-m2-publish.test.ts tells the formulas apart).
      rows.push({ workspace_id: w.id, day, ...values, formula_version: 'v1' });
      rows.push({ workspace_id: w.id, day, ...values, formula_version: 'v2' });
    }
  }
  await insertChunked(rows, 1000, (chunk) => db.insertInto('daily_scores').values(chunk).execute());
  return { workspaces, scores };
}

/** Inserts published-looking weekly cells directly (for archive-depth and cursor tests). */
export async function insertSyntheticWeeklyCells(
  db: Kysely<DB>,
  sector: string,
  lastSunday: string,
  weeks: number,
): Promise<string[]> {
  const ends: string[] = [];
  for (let i = weeks - 1; i >= 0; i--) ends.push(addDays(lastSunday, -7 * i));
  await insertChunked(ends, 500, (chunk) =>
    db
      .insertInto('tacsi_cells')
      .values(
        chunk.map((periodEnd, i) => {
          const value = Math.round((50 + 5 * Math.sin(i / 4)) * 100) / 100;
          return {
            sector,
            cadence: 'weekly' as const,
            period_end: periodEnd,
            methodology_version: 'tacsi-m1',
            index_value: value,
            delta: null,
            presence: value - 1,
            reach: value + 1,
            impact: value + 2,
            sentiment: value - 2,
            momentum: value,
            cohort_band: 'n >= 100',
          };
        }),
      )
      .execute(),
  );
  return ends;
}
