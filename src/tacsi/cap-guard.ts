// The annual-cap check of the publisher, on the per-cell ledger.
//
// The ledger holds one row per published cell (its scope, cadence, period and epsilon), not one per
// entity. That is enough because every entity of a sector is in the same scopes: its sector and the
// headline. Charging each entity for every cell of those two scopes (whether or not it had a score in
// that period) over-counts the entities that missed a period, never under-counts, so checking the
// ledger of "sector + headline" once per sector bounds every entity of that sector at once. A
// headline cell holds entities of many sectors, so it is checked once per sector present in it.
import { HEADLINE, type Membership } from './cohorts.ts';
import {
  checkAnnualCap,
  checkAnnualRhoCap,
  releaseCharge,
  type EntityScores,
  type GaussianMethodology,
  type LedgerEntry,
  type Methodology,
  type ZcdpCharge,
} from './privacy/index.ts';

export interface CapDecision {
  allowed: boolean;
  /** The same scope, cadence and period is already in the ledger (under any methodology). */
  alreadyCharged: boolean;
  /** The worst rolling-window total the new charge would produce, and the cap. */
  epsilonAfter: number;
  cap: number;
  /** The sector whose entities would exceed the cap (for a headline cell), if any. */
  limitingSector: string | null;
}

export class CapGuard {
  readonly #byScope = new Map<string, LedgerEntry[]>();

  constructor(entries: readonly LedgerEntry[] = []) {
    for (const e of entries) this.record(e);
  }

  record(entry: LedgerEntry): void {
    const list = this.#byScope.get(entry.entityScope);
    if (list) list.push(entry);
    else this.#byScope.set(entry.entityScope, [entry]);
  }

  #entries(scope: string): readonly LedgerEntry[] {
    return this.#byScope.get(scope) ?? [];
  }

  /**
   * Would charging `entry` take any entity of the cell over the cap? `memberSectors` are the sectors
   * of the cell's entities: the sector itself for a sector cell, every sector present for the headline.
   */
  check(entry: LedgerEntry, memberSectors: readonly string[], methodology: Methodology): CapDecision {
    const headline = this.#entries(HEADLINE);
    let allowed = true;
    let alreadyCharged = false;
    let epsilonAfter = 0;
    let limitingSector: string | null = null;
    for (const sector of memberSectors) {
      const history = sector === HEADLINE ? headline : [...this.#entries(sector), ...headline];
      const check = checkAnnualCap(history, entry, methodology);
      alreadyCharged ||= check.alreadyCharged;
      epsilonAfter = Math.max(epsilonAfter, check.epsilonAfter);
      if (!check.allowed && allowed) {
        allowed = false;
        limitingSector = sector;
      }
    }
    return { allowed, alreadyCharged, epsilonAfter, cap: methodology.annualCapPerEntity, limitingSector };
  }
}

// ---------------------------------------------------------------------------------------------------
// tacsi-m2: the zCDP ledger, per entity.
//
// The ledger holds one row per charged release (its scope = sector, kind, period and rho). An entity
// is charged every release of each sector it belonged to while the release's period overlapped its
// membership (workspace_sector_history), whether or not it was in that cohort: over-counting, never
// under-counting. Nearly every entity has been in one sector all along, so its charges are its
// sector's rows and one check per release bounds all of them; a release that would take them over the
// cap is refused. An entity that changed sector ("charged in both series") is checked on its own
// charges and, when it would pass the cap, left out of the cohort. Both decisions read only the
// ledger and the membership history, never a score, so they reveal nothing about any value.

export interface RhoLedgerRow {
  scope: string;
  kind: 'daily' | 'weekly' | 'histogram';
  periodStart: string;
  periodEnd: string;
  /** Exact charge in integer 1e-9 rho (rounded up). */
  rhoNano: number;
  /** The entities charged (a release being published; loaded rows leave it out). */
  entities?: readonly string[];
  /** The vintage of the cell released (absent: 1); each vintage of a period is a charge of its own. */
  vintage?: number;
}

/** One recorded charge of one entity (`tacsi_entity_charges` joined to its release). */
export interface EntityCharge {
  scope: string;
  kind: RhoLedgerRow['kind'];
  periodEnd: string;
  rhoNano: number;
  vintage?: number;
}

export type Admission =
  | { status: 'ok'; entities: EntityScores[]; excluded: number }
  | { status: 'cap_exceeded'; rhoAfter: number }
  | { status: 'already_charged' };

const overlaps = (m: Membership, start: string, end: string) =>
  (m.from === null || m.from <= end) && (m.until === null || m.until > start);

export class RhoCapGuard {
  readonly #byScope = new Map<string, RhoLedgerRow[]>();
  readonly #changers: ReadonlyMap<string, readonly Membership[]>;
  readonly #recorded = new Map<string, EntityCharge[]>();
  readonly #m: GaussianMethodology;

  /**
   * `rows`: the methodology's releases around the periods; `changers`: the membership history of the
   * entities that changed sector; `recorded`: what the per-entity ledger says each changer was charged.
   */
  constructor(
    rows: readonly RhoLedgerRow[],
    changers: ReadonlyMap<string, readonly Membership[]>,
    m: GaussianMethodology,
    recorded: ReadonlyMap<string, readonly EntityCharge[]> = new Map(),
  ) {
    for (const r of rows) this.#add(r);
    this.#changers = changers;
    for (const [id, charges] of recorded) this.#recorded.set(id, [...charges]);
    this.#m = m;
  }

  #add(row: RhoLedgerRow): void {
    const list = this.#byScope.get(row.scope);
    if (list) list.push(row);
    else this.#byScope.set(row.scope, [row]);
  }

  #charge(row: RhoLedgerRow): ZcdpCharge {
    return { entityScope: row.scope, kind: row.kind, periodEnd: row.periodEnd, rhoNano: row.rhoNano };
  }

  #newRow(scope: string, kind: RhoLedgerRow['kind'], periodStart: string, periodEnd: string): RhoLedgerRow {
    const { rhoNano } = releaseCharge(kind, scope, periodEnd, this.#m);
    return { scope, kind, periodStart, periodEnd, rhoNano };
  }

  /**
   * The charges of one changer: what the per-entity ledger recorded it was charged, together with each
   * sector's releases that overlap its membership of that sector (each release once). The record
   * cannot be rewritten by a later edit of the membership history; the membership adds releases it
   * may have missed (over-counting, never under-counting).
   */
  #changerCharges(entityId: string, memberships: readonly Membership[]): ZcdpCharge[] {
    const out = new Map<string, ZcdpCharge>();
    const add = (c: ZcdpCharge, vintage = 1) =>
      out.set(`${c.entityScope}|${c.kind}|${c.periodEnd}|${vintage}`, c);
    for (const r of this.#recorded.get(entityId) ?? [])
      add({ entityScope: r.scope, kind: r.kind, periodEnd: r.periodEnd, rhoNano: r.rhoNano }, r.vintage);
    for (const [scope, rows] of this.#byScope) {
      const spans = memberships.filter((ms) => ms.sector === scope);
      if (spans.length === 0) continue;
      for (const r of rows)
        if (spans.some((ms) => overlaps(ms, r.periodStart, r.periodEnd))) add(this.#charge(r), r.vintage);
    }
    return [...out.values()];
  }

  /**
   * May `entities` be in this release? Drops changers that would pass the cap. A release of a period
   * already charged is `already_charged`, unless `correction`: a correction is a new vintage, charged
   * in full on top of the earlier ones (two independent noisy releases compose).
   */
  admit(
    scope: string,
    kind: RhoLedgerRow['kind'],
    periodStart: string,
    periodEnd: string,
    entities: readonly EntityScores[],
    correction = false,
  ): Admission {
    const row = this.#newRow(scope, kind, periodStart, periodEnd);
    const charge = this.#charge(row);
    const sector = checkAnnualRhoCap(
      (this.#byScope.get(scope) ?? []).map((r) => this.#charge(r)),
      charge,
      this.#m,
    );
    if (sector.alreadyCharged && !correction) return { status: 'already_charged' };
    if (!sector.allowed) return { status: 'cap_exceeded', rhoAfter: sector.rhoAfter };
    if (this.#changers.size === 0) return { status: 'ok', entities: [...entities], excluded: 0 };
    const kept: EntityScores[] = [];
    for (const e of entities) {
      const memberships = this.#changers.get(e.entityId);
      if (
        !memberships ||
        checkAnnualRhoCap(this.#changerCharges(e.entityId, memberships), charge, this.#m).allowed
      )
        kept.push(e);
    }
    return { status: 'ok', entities: kept, excluded: entities.length - kept.length };
  }

  /** Records a published release (of `vintage`, default 1) and who is charged it; returns its ledger row. */
  record(
    scope: string,
    kind: RhoLedgerRow['kind'],
    periodStart: string,
    periodEnd: string,
    entities: readonly EntityScores[],
    vintage = 1,
  ): RhoLedgerRow {
    const row = {
      ...this.#newRow(scope, kind, periodStart, periodEnd),
      entities: entities.map((e) => e.entityId),
      vintage,
    };
    this.#add(row);
    for (const e of entities) {
      if (!this.#changers.has(e.entityId)) continue;
      const list = this.#recorded.get(e.entityId) ?? [];
      list.push({ scope, kind, periodEnd, rhoNano: row.rhoNano, vintage });
      this.#recorded.set(e.entityId, list);
    }
    return row;
  }
}
