// The annual-cap check of the publisher, on the per-cell ledger.
//
// The ledger holds one row per published cell (its scope, cadence, period and epsilon), not one per
// entity. That is enough because every entity of a sector is in the same scopes: its sector and the
// headline. Charging each entity for every cell of those two scopes (whether or not it had a score in
// that period) over-counts the entities that missed a period, never under-counts, so checking the
// ledger of "sector + headline" once per sector bounds every entity of that sector at once. A
// headline cell holds entities of many sectors, so it is checked once per sector present in it.
import { HEADLINE } from './cohorts.ts';
import { checkAnnualCap, type LedgerEntry, type Methodology } from './privacy/index.ts';

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
