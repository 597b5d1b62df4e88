import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * The published benchmark industry a sector's brands are judged against (docs/scoring.md, "Formula
 * v3: the scale"); null: all industries. Set by the operator with the sector.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The industries of core/catalog.ts BENCHMARK_INDUSTRIES when this was written (a migration does not
  // follow later edits of the list; a new industry takes a migration of its own).
  await runStatements(
    db,
    `ALTER TABLE sectors ADD COLUMN benchmark_industry text CHECK (benchmark_industry IN (
       'alcohol', 'fashion', 'financial-services', 'food-beverage', 'health-beauty', 'higher-education',
       'home-decor', 'influencers', 'media', 'nonprofits', 'retail', 'sports-teams', 'tech-software', 'travel'));`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(db, `ALTER TABLE sectors DROP COLUMN benchmark_industry;`);
}
