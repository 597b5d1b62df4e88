// What one publication request did with one (scope, cadence, period): shared by the tacsi-m1 and
// tacsi-m2 publishers, the jobs and the CLI.
import type { Cadence } from './privacy/index.ts';
import { DomainError } from '../core/errors.ts';

export type PublicationStatus =
  /** Perturbed and stored now. */
  | 'published'
  /** The cell was already published under this methodology: nothing drawn, nothing charged. */
  | 'exists'
  /** The same scope and period is in the ledger under another methodology: not re-released. */
  | 'already_charged'
  /** Fewer than the methodology's minimum entities: no cell at all. */
  | 'below_min_cohort'
  /** Publishing would take some entity over its annual privacy cap: refused. */
  | 'cap_exceeded'
  /** tacsi-m2 daily cell of a cohort below 250: not published (the daily feed says Not Published). */
  | 'below_daily_minimum'
  /** tacsi-m2 daily cell of a week already published as a direct weekly cell: never charged twice. */
  | 'superseded'
  /** The methodology publishes no such cell (tacsi-m2 has no daily headline). */
  | 'not_offered'
  /** A period before the tacsi-m2 cut-over asked for on or after the cut-over day: tacsi-m1 is closed. */
  | 'closed';

export interface PublicationOutcome {
  sector: string;
  cadence: Cadence;
  periodEnd: string;
  status: PublicationStatus;
  cohortBand?: string;
  /** tacsi-m2: how the cell was made (noised; mean of the week's daily cells; the headline's sectors). */
  derivation?: 'noised' | 'daily' | 'sectors';
  /** tacsi-m2: entities left out because their own charges (sector changers) would pass the cap. */
  excluded?: number;
}

/**
 * A publication request that cannot be carried out as asked: `invalid_parameter` naming the argument
 * at fault, or, without one, `conflict` with what is published or stored.
 */
export function publicationRefused(detail: string, parameter?: string): DomainError {
  return parameter === undefined
    ? new DomainError('conflict', detail)
    : new DomainError('invalid_parameter', detail, { parameter, message: detail });
}
