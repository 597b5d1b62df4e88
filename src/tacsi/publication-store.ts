// The publisher's SQL. Publication runs in one transaction of few round trips: lock and sector list,
// the published state it needs (cells and ledger) in one query, the cohort query, then cells and
// ledger rows stored in one statement.
import type { PillarScores } from '../core/catalog.ts';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../infra/db/types.ts';
import { ROLLING_WINDOW_DAYS, type Cadence, type LedgerEntry, type Methodology } from './privacy/index.ts';
import { addDays } from '../core/days.ts';
import { PUBLICATION_LOCK, recordEntityCharges } from './ledger-store.ts';
import { periodStart } from './periods.ts';

const INSERT_CHUNK = 500;

/**
 * Takes the publication lock (held to the end of the transaction) and lists the consumer sectors.
 * Later statements see everything committed before the lock was granted.
 */
export async function lockAndListSectors(trx: Kysely<DB>): Promise<string[]> {
  const result = await sql<{ sectors: string[] | null }>`
    SELECT pg_advisory_xact_lock(${PUBLICATION_LOCK}) AS locked,
           array(SELECT slug FROM sectors WHERE is_consumer ORDER BY slug) AS sectors
  `.execute(trx);
  return result.rows[0]?.sectors ?? [];
}

export interface TimelinePoint {
  periodEnd: string;
  indexValue: number;
}

export interface PublicationState {
  /** Per scope, oldest first: the cells in [first, last] and the latest one before first. */
  timelines: Map<string, TimelinePoint[]>;
  /** Every ledger entry that can share a rolling window with a period in [first, last]. */
  ledger: LedgerEntry[];
}

/**
 * The published state a publication of [first, last] depends on: this cadence and methodology's cells
 * of the scopes (to skip existing ones and compute deltas) and the ledger within 364 days either side.
 */
export async function loadPublicationState(
  trx: Kysely<DB>,
  cadence: Cadence,
  methodology: Methodology,
  scopes: readonly string[],
  first: string,
  last: string,
): Promise<PublicationState> {
  const reach = ROLLING_WINDOW_DAYS - 1;
  const inScopes = sql.join(scopes);
  const result = await sql<{
    source: 'cell' | 'ledger';
    sector: string;
    cadence: Cadence;
    period_end: string;
    value: number;
  }>`
    SELECT 'cell' AS source, sector, cadence, period_end, index_value AS value
      FROM tacsi_cells
     WHERE cadence = ${cadence} AND methodology_version = ${methodology.version} AND sector IN (${inScopes})
       AND period_end BETWEEN ${first}::date AND ${last}::date
    UNION ALL
    SELECT * FROM (
      SELECT DISTINCT ON (sector) 'cell' AS source, sector, cadence, period_end, index_value AS value
        FROM tacsi_cells
       WHERE cadence = ${cadence} AND methodology_version = ${methodology.version} AND sector IN (${inScopes})
         AND period_end < ${first}::date
       ORDER BY sector, period_end DESC
    ) AS previous
    UNION ALL
    SELECT 'ledger', sector, cadence, period_end, epsilon
      FROM tacsi_privacy_ledger
     WHERE period_end BETWEEN ${addDays(first, -reach)}::date AND ${addDays(last, reach)}::date
  `.execute(trx);
  const timelines = new Map<string, TimelinePoint[]>(scopes.map((s) => [s, []]));
  const ledger: LedgerEntry[] = [];
  for (const r of result.rows) {
    if (r.source === 'cell') timelines.get(r.sector)?.push({ periodEnd: r.period_end, indexValue: r.value });
    else
      ledger.push({ entityScope: r.sector, cadence: r.cadence, periodEnd: r.period_end, epsilon: r.value });
  }
  for (const t of timelines.values()) t.sort((a, b) => a.periodEnd.localeCompare(b.periodEnd));
  return { timelines, ledger };
}

export interface CellToStore {
  sector: string;
  periodEnd: string;
  indexValue: number;
  delta: number | null;
  pillars: PillarScores;
  cohortBand: string;
  /** The entities in the cell: each is charged the cell's release in the one ledger. */
  entities: readonly string[];
}

/** A tacsi-m1 cell's zCDP charge in 1e-9 rho: its statistics at epsilon e each cost e^2 / 2 (rounded up). */
export function m1RhoNano(m: Methodology): number {
  const { numerator: n, denominator: d } = m.epsilonPerStatisticRatio;
  const num = BigInt(m.statisticsPerCell) * BigInt(n) * BigInt(n) * 1_000_000_000n;
  const den = 2n * BigInt(d) * BigInt(d);
  return Number((num + den - 1n) / den);
}

/**
 * Stores cells and, for each cell actually inserted, its ledger row, in one statement per chunk
 * (a data-modifying CTE). A cell a concurrent publisher stored first is left alone (ON CONFLICT DO
 * NOTHING) and is missing from the result; its discarded draw was never published. Returns the keys
 * (`sector|periodEnd`) of the cells stored.
 */
export async function storeCells(
  trx: Kysely<DB>,
  cadence: Cadence,
  methodology: Methodology,
  cells: readonly CellToStore[],
  publishedAt: Date,
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < cells.length; i += INSERT_CHUNK) {
    const values = cells.slice(i, i + INSERT_CHUNK).map(
      (c) =>
        sql`(${c.sector}, ${cadence}, ${c.periodEnd}::date, ${methodology.version}, ${c.indexValue}::float8,
               ${c.delta}::float8, ${c.pillars.presence}::float8, ${c.pillars.reach}::float8,
               ${c.pillars.impact}::float8, ${c.pillars.sentiment}::float8, ${c.pillars.momentum}::float8,
               ${c.cohortBand}, ${publishedAt})`,
    );
    const result = await sql<{ sector: string; period_end: string; cell_id: number }>`
      WITH cells AS (
        INSERT INTO tacsi_cells (sector, cadence, period_end, methodology_version, index_value, delta,
                                 presence, reach, impact, sentiment, momentum, cohort_band, published_at)
        VALUES ${sql.join(values)}
        ON CONFLICT (sector, cadence, period_end, methodology_version, vintage) DO NOTHING
        RETURNING id, sector, cadence, period_end, methodology_version
      )
      INSERT INTO tacsi_privacy_ledger (cell_id, sector, cadence, period_end, methodology_version, mechanism,
                                        epsilon, noise_scale)
      SELECT id, sector, cadence, period_end, methodology_version, 'discrete-laplace',
             ${methodology.epsilonPerCell}::float8, ${methodology.noiseScale}::float8
        FROM cells
      RETURNING cell_id, sector, period_end
    `.execute(trx);
    for (const r of result.rows) stored.add(`${r.sector}|${r.period_end}`);
    await chargeM1(trx, cadence, methodology, cells, result.rows);
  }
  return stored;
}

/** The one ledger: each stored tacsi-m1 cell's release row and the entities it charged. */
async function chargeM1(
  trx: Kysely<DB>,
  cadence: Cadence,
  methodology: Methodology,
  cells: readonly CellToStore[],
  stored: ReadonlyArray<{ sector: string; period_end: string; cell_id: number }>,
): Promise<void> {
  if (stored.length === 0) return;
  const rhoNano = m1RhoNano(methodology);
  const rows = await trx
    .insertInto('tacsi_rho_ledger')
    .values(
      stored.map((r) => ({
        scope: r.sector,
        kind: cadence,
        period_start: periodStart(cadence, r.period_end),
        period_end: r.period_end,
        methodology_version: methodology.version,
        rho_units: String(rhoNano),
        rho: rhoNano / 1e9,
        cell_id: Number(r.cell_id),
      })),
    )
    .returning(['id', 'scope', 'period_end'])
    .execute();
  const byKey = new Map(cells.map((c) => [`${c.sector}|${c.periodEnd}`, c.entities]));
  await recordEntityCharges(
    trx,
    rows.map((r) => ({ ledgerId: Number(r.id), entities: byKey.get(`${r.scope}|${r.period_end}`) ?? [] })),
  );
}

/**
 * `sector|periodEnd` of the cells of the cadence published under another methodology than `version`
 * in the periods: one period is released under one methodology only (a second independent noisy
 * release of it would let an average cancel the noise).
 */
export async function cellsOfOtherMethodologies(
  trx: Kysely<DB>,
  cadence: Cadence,
  version: string,
  periodEnds: readonly string[],
): Promise<Set<string>> {
  if (periodEnds.length === 0) return new Set();
  const rows = await trx
    .selectFrom('tacsi_cells')
    .select(['sector', 'period_end'])
    .where('cadence', '=', cadence)
    .where('methodology_version', '<>', version)
    .where('period_end', 'in', [...periodEnds])
    .execute();
  return new Set(rows.map((r) => `${r.sector}|${r.period_end}`));
}
