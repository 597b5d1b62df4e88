import { sql, type Kysely } from 'kysely';
import type { DB, Workspace } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { isCalendarDay } from '../core/days.ts';
import {
  BENCHMARK_INDUSTRIES,
  type AccountType,
  type BenchmarkIndustry,
  type BillingPeriod,
  type OrgType,
  type Plan,
} from '../core/catalog.ts';
import { firstChangeableDay, lockPublications, publishedPeriodFrom } from '../tacsi/ledger-store.ts';

export interface CreateWorkspaceInput {
  name: string;
  plan: Plan;
  billingPeriod?: BillingPeriod;
  parentId?: string | null;
  accountType?: AccountType;
  orgType?: OrgType;
  isWhiteLabeled?: boolean;
  sector?: string | null;
  realtimeScoring?: boolean;
  id?: string;
  createdAt?: Date;
}

export async function createWorkspace(db: Kysely<DB>, input: CreateWorkspaceInput): Promise<Workspace> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalidParameter('name', 'must be 1-200 characters');
  if (input.parentId) {
    const parent = await db
      .selectFrom('workspaces')
      .select(['id', 'account_type'])
      .where('id', '=', input.parentId)
      .executeTakeFirst();
    if (!parent) throw new DomainError('not_found', `parent workspace ${input.parentId} does not exist`);
    if (parent.account_type !== 'agency')
      throw invalidParameter('parent', `workspace ${input.parentId} is not an agency`);
  }
  if (input.sector) {
    const sector = await db
      .selectFrom('sectors')
      .select('slug')
      .where('slug', '=', input.sector)
      .executeTakeFirst();
    if (!sector) throw new DomainError('not_found', `sector ${input.sector} does not exist`);
  }
  return db
    .insertInto('workspaces')
    .values({
      id: input.id ?? newId('ws'),
      name,
      plan: input.plan,
      billing_period: input.billingPeriod ?? 'monthly',
      parent_id: input.parentId ?? null,
      account_type: input.accountType ?? 'brand',
      org_type:
        input.orgType ??
        (input.accountType === 'agency'
          ? 'agency'
          : input.accountType === 'creator'
            ? 'individual'
            : 'company'),
      is_white_labeled: input.isWhiteLabeled ?? false,
      sector_slug: input.sector ?? null,
      realtime_scoring: input.realtimeScoring ?? false,
      ...(input.createdAt ? { created_at: input.createdAt } : {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What an operator sees of a workspace: its own fields, not bookkeeping columns. */
const LISTED_COLUMNS = [
  'id',
  'name',
  'plan',
  'billing_period',
  'parent_id',
  'account_type',
  'org_type',
  'is_white_labeled',
  'sector_slug',
  'realtime_scoring',
  'created_at',
] as const satisfies readonly (keyof Workspace)[];

export type ListedWorkspace = Pick<Workspace, (typeof LISTED_COLUMNS)[number]>;

/**
 * Workspaces oldest first, a page at a time: `after` is the last id of the previous page (keyset on
 * created_at, id), `limit` the page size. `more` says whether another page follows.
 */
export async function listWorkspaces(
  db: Kysely<DB>,
  filter: { parentId?: string; after?: string; limit?: number } = {},
): Promise<{ rows: ListedWorkspace[]; more: boolean }> {
  let q = db.selectFrom('workspaces').select(LISTED_COLUMNS).orderBy('created_at').orderBy('id');
  if (filter.parentId) q = q.where('parent_id', '=', filter.parentId);
  if (filter.after !== undefined) {
    const cursor = await db
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', filter.after)
      .executeTakeFirst();
    if (!cursor) throw new DomainError('not_found', `workspace ${filter.after} (--after) does not exist`);
    // Compared in SQL: created_at carries microseconds, which a round trip through a JS Date would drop.
    q = q.where(
      sql<boolean>`(created_at, id) > (SELECT created_at, id FROM workspaces WHERE id = ${filter.after})`,
    );
  }
  if (filter.limit === undefined) return { rows: await q.execute(), more: false };
  const rows = await q.limit(filter.limit + 1).execute();
  return { rows: rows.slice(0, filter.limit), more: rows.length > filter.limit };
}

/** Moves a client to another agency (or makes it independent with null). */
export async function setParent(db: Kysely<DB>, workspaceId: string, parentId: string | null): Promise<void> {
  if (parentId) {
    const parent = await db
      .selectFrom('workspaces')
      .select('account_type')
      .where('id', '=', parentId)
      .executeTakeFirst();
    if (!parent || parent.account_type !== 'agency')
      throw invalidParameter('parent', `${parentId} is not an agency workspace`);
  }
  const result = await db
    .updateTable('workspaces')
    .set({ parent_id: parentId })
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!result.numUpdatedRows) throw new DomainError('not_found', `workspace ${workspaceId} does not exist`);
}

/**
 * Creates or updates a sector. `benchmarkIndustry` maps it to an industry of the published benchmarks
 * its brands' scores are judged against (docs/scoring.md, "Formula v3: the scale"): an industry of
 * BENCHMARK_INDUSTRIES, or 'all' for none; left out, an existing sector keeps its own. Scores computed
 * from then on use it; stored ones keep the baseline they were computed with until recomputed.
 */
export async function createSector(
  db: Kysely<DB>,
  slug: string,
  name: string,
  isConsumer = true,
  benchmarkIndustry?: string,
): Promise<{
  slug: string;
  name: string;
  is_consumer: boolean;
  benchmark_industry: BenchmarkIndustry | null;
}> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) || slug === 'headline') {
    throw invalidParameter(
      'slug',
      `sector slug "${slug}" must be lower-case words joined by hyphens (and not "headline")`,
    );
  }
  if (
    benchmarkIndustry !== undefined &&
    benchmarkIndustry !== 'all' &&
    !(BENCHMARK_INDUSTRIES as readonly string[]).includes(benchmarkIndustry)
  ) {
    throw invalidParameter(
      'benchmark_industry',
      `benchmark industry "${benchmarkIndustry}" must be all or one of ${BENCHMARK_INDUSTRIES.join(', ')}`,
    );
  }
  const industry =
    benchmarkIndustry === undefined || benchmarkIndustry === 'all'
      ? null
      : (benchmarkIndustry as BenchmarkIndustry);
  return db
    .insertInto('sectors')
    .values({ slug, name, is_consumer: isConsumer, benchmark_industry: industry })
    .onConflict((oc) =>
      oc.column('slug').doUpdateSet({
        name,
        is_consumer: isConsumer,
        ...(benchmarkIndustry !== undefined ? { benchmark_industry: industry } : {}),
      }),
    )
    .returning(['slug', 'name', 'is_consumer', 'benchmark_industry'])
    .executeTakeFirstOrThrow();
}

/**
 * Moves a workspace to another sector (or none) from `effectiveDay` (YYYY-MM-DD).
 * The membership history (workspace_sector_history, kept by a trigger on every write of
 * workspaces.sector_slug) records the change on that day, so TACSI charges the entity both sectors'
 * releases for the rolling year and places each of its scores in the sector it belonged to that day.
 * A change may not take effect over a period TACSI has already published for the old or the new
 * sector: that period was released, and charged, with the membership as it was (docs/privacy.md §3).
 */
/**
 * Moves a workspace to another plan (an operator's step: a workspace a person starts is on Free). The
 * plan's limits apply from the next request; a key's cached principal sees it within AUTH_CACHE_TTL.
 * What is over a smaller plan's limits stays (connections, members) and nothing new is allowed past it.
 */
export async function setPlan(db: Kysely<DB>, workspaceId: string, plan: Plan): Promise<void> {
  const updated = await db
    .updateTable('workspaces')
    .set({ plan })
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!updated.numUpdatedRows) throw new DomainError('not_found', `workspace ${workspaceId} does not exist`);
}

export async function setSector(
  db: Kysely<DB>,
  workspaceId: string,
  sector: string | null,
  effectiveDay: string,
): Promise<void> {
  if (!isCalendarDay(effectiveDay))
    throw invalidParameter('from', `effective day ${effectiveDay} must be a date YYYY-MM-DD`);
  await db.transaction().execute(async (trx) => {
    if (sector) {
      const row = await trx
        .selectFrom('sectors')
        .select('slug')
        .where('slug', '=', sector)
        .executeTakeFirst();
      if (!row) throw new DomainError('not_found', `sector ${sector} does not exist`);
    }
    // Under the publication lock, so no publication runs between the check and the change.
    await lockPublications(trx);
    const current = await trx
      .selectFrom('workspaces')
      .select('sector_slug')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (!current) throw new DomainError('not_found', `workspace ${workspaceId} does not exist`);
    if (current.sector_slug === sector) return;
    const sectors = [current.sector_slug, sector].filter((s): s is string => s !== null);
    const published = await publishedPeriodFrom(trx, sectors, effectiveDay);
    if (published) {
      throw new DomainError(
        'conflict',
        `cannot change the sector of ${workspaceId} from ${effectiveDay}: TACSI has already published ` +
          `${published.scope}'s ${published.cadence} period ending ${published.periodEnd}, released with the ` +
          `membership as it was; the change can take effect from ${firstChangeableDay(published)} at the earliest`,
      );
    }
    // Read by the history trigger; local to this transaction.
    await sql`SELECT set_config('brand_health.sector_change_day', ${effectiveDay}, true)`.execute(trx);
    const result = await trx
      .updateTable('workspaces')
      .set({ sector_slug: sector })
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (!result.numUpdatedRows) throw new DomainError('not_found', `workspace ${workspaceId} does not exist`);
  });
}
