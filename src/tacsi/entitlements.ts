// TACSI entitlements and the uniform Not Licensed denial.
//
// Coverage must not be enumerable (spec, Authentication 6): an unknown sector or pillar, an
// unlicensed sector, a missing Daily add-on, an exclusivity lockout, a key without the read scope and
// a workspace key all get the same 403, and reach it doing the same work: one query that loads the
// caller's entitlements, every active exclusivity lock and the consumer sector list (whatever sector
// was asked for), then an evaluation in memory that looks at every rule before deciding.
import { sql, type Kysely } from 'kysely';
import type { Principal } from '../infra/auth/principal.ts';
import type { DB } from '../infra/db/types.ts';
import { ProblemError } from '../infra/http/problem.ts';
import { HEADLINE } from './cohorts.ts';
import { TACSI_PILLARS } from './privacy/index.ts';

export type TacsiFeed = 'weekly' | 'history' | 'pillars' | 'daily' | 'methodology';

export interface FeedRequest {
  feed: TacsiFeed;
  /** Well-formed slug (shape already validated) or 'headline'; unused by the methodology feed. */
  sector?: string;
  pillar?: string;
}

interface AccessRow {
  source: 'grant' | 'lock' | 'sector';
  kind: string | null;
  sector: string | null;
  pillar: string | null;
  valid_from: string | null;
  valid_until: string | null;
}

/** What one request may see: everything needed to decide, loaded in one query. */
export interface AccessSnapshot {
  isSubscriber: boolean;
  canRead: boolean;
  today: string;
  rows: AccessRow[];
}

// No subscriber id is empty, so a workspace key runs the same query, loads the same locks and
// sectors, and no grant: the same work as any other denial.
const NO_SUBSCRIBER = '';

/** Loads the caller's grants, every active exclusive lock held by others, and the consumer sectors. */
export async function loadAccess(
  db: Kysely<DB>,
  principal: Principal,
  today: string,
): Promise<AccessSnapshot> {
  const subscriberId = principal.kind === 'subscriber' ? principal.subscriberId : NO_SUBSCRIBER;
  const result = await sql<AccessRow>`
    SELECT 'grant' AS source, kind, sector_slug AS sector, pillar, valid_from, valid_until
      FROM tacsi_entitlements
     WHERE subscriber_id = ${subscriberId} AND revoked_at IS NULL
    UNION ALL
    SELECT 'lock', kind, sector_slug, pillar, valid_from, valid_until
      FROM tacsi_entitlements
     WHERE exclusive AND revoked_at IS NULL AND subscriber_id <> ${subscriberId}
    UNION ALL
    SELECT 'sector', NULL, slug, NULL, NULL, NULL FROM sectors WHERE is_consumer
  `.execute(db);
  return {
    isSubscriber: principal.kind === 'subscriber',
    canRead: principal.scopes.includes('read'),
    today,
    rows: result.rows,
  };
}

/** Entitlements hold from valid_from to valid_until inclusive (UTC dates); revoked rows never load. */
function validOn(row: AccessRow, today: string): boolean {
  return (
    (row.valid_from === null || row.valid_from <= today) &&
    (row.valid_until === null || today <= row.valid_until)
  );
}

/**
 * The licensing rules (spec, Authentication 4-5). Every flag is computed for every request; nothing
 * returns early, so the time taken does not depend on which rule fails.
 */
export function isLicensed(access: AccessSnapshot, request: FeedRequest): boolean {
  const sector = request.sector ?? '';
  const pillar = request.pillar ?? '';
  let knownSector = sector === HEADLINE;
  let lockedOut = false;
  let fullDatabase = false;
  let sectorFeed = false;
  let dailyAddon = false;
  let pillarFeed = false;
  for (const row of access.rows) {
    const valid = validOn(row, access.today);
    const sameSector = row.sector === sector;
    knownSector = knownSector || (row.source === 'sector' && sameSector);
    lockedOut = lockedOut || (row.source === 'lock' && valid && sameSector);
    const grant = row.source === 'grant' && valid;
    fullDatabase = fullDatabase || (grant && row.kind === 'full_database');
    sectorFeed = sectorFeed || (grant && row.kind === 'sector_feed' && sameSector);
    dailyAddon = dailyAddon || (grant && row.kind === 'daily_addon' && sameSector);
    pillarFeed = pillarFeed || (grant && row.kind === 'pillar_feed' && sameSector && row.pillar === pillar);
  }
  const knownPillar = (TACSI_PILLARS as readonly string[]).includes(pillar);
  // The headline composite is reachable with the Full Database only, on every feed.
  const headline = sector === HEADLINE;
  const sectorLevel = headline ? fullDatabase : sectorFeed || fullDatabase;
  const rules: Record<TacsiFeed, boolean> = {
    weekly: sectorLevel,
    history: sectorLevel,
    pillars: knownPillar && (headline ? fullDatabase : pillarFeed || sectorFeed || fullDatabase),
    daily: headline ? fullDatabase : (sectorFeed && dailyAddon) || fullDatabase,
    methodology: true,
  };
  const sectorOk = request.feed === 'methodology' || (knownSector && !lockedOut);
  return access.isSubscriber && access.canRead && sectorOk && rules[request.feed];
}

/** The one and only denial: same status, title, detail and headers whatever the reason. */
export function notLicensed(): ProblemError {
  return new ProblemError(403, 'Not Licensed', 'This key is not licensed for the requested TACSI feed.');
}

/** Loads and decides in one step; throws the uniform denial. */
export async function assertLicensed(
  db: Kysely<DB>,
  principal: Principal,
  today: string,
  request: FeedRequest,
): Promise<void> {
  const access = await loadAccess(db, principal, today);
  if (!isLicensed(access, request)) throw notLicensed();
}
