// The one TACSI ledger's SQL: the fixed cut-over, who was charged each release (per entity), and the
// guard that keeps sector changes from rewriting membership over published periods.
//
// Every release of every methodology is a row of `tacsi_rho_ledger` (its scope, kind, period and rho)
// and, for each entity charged, a row of `tacsi_entity_charges`, written in the release's transaction.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { addDays } from '../core/days.ts';
import { publicationRefused } from './outcome.ts';

// All publications, and every sector change, serialise on one advisory lock, so two publishers
// cannot both pass the cap check on the same ledger state and no membership changes mid-publication.
export const PUBLICATION_LOCK = 0x7ac51;

const M2 = 'tacsi-m2';
/** Entity rows per INSERT statement (two array parameters). */
const ENTITY_CHUNK = 20_000;

/** Takes the publication lock until the end of the transaction. */
export async function lockPublications(trx: Kysely<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${PUBLICATION_LOCK})`.execute(trx);
}

/** The stored cut-over, or null before the first publication. */
export async function storedCutOver(db: Kysely<DB>): Promise<string | null> {
  const row = await db
    .selectFrom('tacsi_cutover')
    .select('periods_ending_on_or_after')
    .where('methodology_version', '=', M2)
    .executeTakeFirst();
  return row?.periods_ending_on_or_after ?? null;
}

/**
 * The cut-over publication must use: stored at the first publication from the configured value, and
 * from then on the only one. A different value set explicitly is refused (it would route periods back
 * to tacsi-m1, or re-release m1 periods under m2); the default (TACSI_M2_FROM unset) follows the stored
 * one. Call under the publication lock.
 */
export async function fixCutOver(trx: Kysely<DB>, configured: string, isDefault = false): Promise<string> {
  const stored = await storedCutOver(trx);
  if (stored !== null) {
    if (stored !== configured && !isDefault)
      throw publicationRefused(
        `TACSI_M2_FROM is ${configured} but the tacsi-m2 cut-over was fixed at ${stored} by the first ` +
          `publication and cannot change: set TACSI_M2_FROM=${stored}`,
      );
    return stored;
  }
  // First use: the published archive must agree with the value being fixed.
  const clash = await sql<{ methodology_version: string; period_end: string }>`
    SELECT methodology_version, period_end::text AS period_end FROM tacsi_cells
     WHERE (methodology_version = 'tacsi-m1' AND period_end >= ${configured}::date)
        OR (methodology_version <> 'tacsi-m1' AND period_end < ${configured}::date)
     LIMIT 1
  `.execute(trx);
  const c = clash.rows[0];
  if (c)
    throw publicationRefused(
      `TACSI_M2_FROM ${configured} disagrees with the published archive (a ${c.methodology_version} ` +
        `cell ends ${c.period_end}); the cut-over cannot be fixed there`,
    );
  await trx
    .insertInto('tacsi_cutover')
    .values({ methodology_version: M2, periods_ending_on_or_after: configured })
    .execute();
  return configured;
}

/** Records who was charged each release: `charges` maps a ledger row id to the entities in it. */
export async function recordEntityCharges(
  trx: Kysely<DB>,
  charges: ReadonlyArray<{ ledgerId: number; entities: readonly string[] }>,
): Promise<void> {
  const ids: number[] = [];
  const entities: string[] = [];
  const flush = async () => {
    if (entities.length === 0) return;
    await sql`
      INSERT INTO tacsi_entity_charges (ledger_id, workspace_id)
      SELECT * FROM unnest(${ids}::bigint[], ${entities}::text[])
    `.execute(trx);
    ids.length = 0;
    entities.length = 0;
  };
  for (const c of charges) {
    for (const e of c.entities) {
      ids.push(c.ledgerId);
      entities.push(e);
      if (entities.length >= ENTITY_CHUNK) await flush();
    }
  }
  await flush();
}

export interface RecordedCharge {
  workspaceId: string;
  scope: string;
  kind: 'daily' | 'weekly' | 'histogram';
  periodEnd: string;
  rhoNano: number;
  /** The release's vintage: a correction is charged again, as a release of its own. */
  vintage: number;
}

/** The recorded charges of the given entities under a methodology, for releases ending in [from, to]. */
export async function recordedCharges(
  trx: Kysely<DB>,
  workspaceIds: readonly string[],
  version: string,
  from: string,
  to: string,
): Promise<RecordedCharge[]> {
  if (workspaceIds.length === 0) return [];
  const result = await sql<{
    workspace_id: string;
    scope: string;
    kind: RecordedCharge['kind'];
    period_end: string;
    rho_units: string | number;
    vintage: number;
  }>`
    SELECT c.workspace_id, l.scope, l.kind, l.period_end::text AS period_end, l.rho_units, l.vintage
      FROM tacsi_entity_charges c
      JOIN tacsi_rho_ledger l ON l.id = c.ledger_id
     WHERE c.workspace_id = ANY(${[...workspaceIds]}::text[]) AND l.methodology_version = ${version}
       AND l.period_end BETWEEN ${from}::date AND ${to}::date
  `.execute(trx);
  return result.rows.map((r) => ({
    workspaceId: r.workspace_id,
    scope: r.scope,
    kind: r.kind,
    periodEnd: r.period_end,
    rhoNano: Number(r.rho_units),
    vintage: r.vintage,
  }));
}

export interface PublishedPeriod {
  scope: string;
  cadence: string;
  periodEnd: string;
}

/**
 * The latest published TACSI period (a cell of any methodology or a histogram) of the given sectors
 * that ends on or after `day`, or null: a sector change effective on `day` would rewrite the
 * membership of that period, which was released (and charged) as it was.
 */
export async function publishedPeriodFrom(
  trx: Kysely<DB>,
  sectors: readonly string[],
  day: string,
): Promise<PublishedPeriod | null> {
  if (sectors.length === 0) return null;
  const result = await sql<{ scope: string; cadence: string; period_end: string }>`
    SELECT sector AS scope, cadence, period_end::text AS period_end FROM tacsi_cells
     WHERE sector = ANY(${[...sectors]}::text[]) AND period_end >= ${day}::date
    UNION ALL
    SELECT sector, 'histogram', period_end::text FROM tacsi_histograms
     WHERE sector = ANY(${[...sectors]}::text[]) AND period_end >= ${day}::date
    ORDER BY period_end DESC LIMIT 1
  `.execute(trx);
  const r = result.rows[0];
  return r ? { scope: r.scope, cadence: r.cadence, periodEnd: r.period_end } : null;
}

/** The first day a sector change may take effect on, given the latest published period. */
export const firstChangeableDay = (p: PublishedPeriod) => addDays(p.periodEnd, 1);
