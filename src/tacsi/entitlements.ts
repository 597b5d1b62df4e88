// TACSI entitlements and the uniform Not Licensed denial.
//
// Coverage must not be enumerable (spec, Authentication 6): an unknown sector or pillar, an
// unlicensed sector, a missing Daily add-on, an exclusivity lockout, a key without the read scope and
// a workspace key all get the same 403, and reach it doing the same work: one query that loads the
// caller's entitlements, every active exclusivity lock and the consumer sector list (whatever sector
// was asked for), then an evaluation in memory that looks at every rule before deciding.
//
// The loaded rows are cached per subscriber (never per sector) for the auth cache TTL, so a hot key's
// check costs no database round trip. Whether a request hits the cache depends only on who asks, never
// on what is asked for, so the denial stays uniform; the price is that a grant, revocation or new
// exclusive lock takes up to that TTL to be seen by a subscriber already cached.
import { sql, type Kysely } from 'kysely';
import type { Principal } from '../infra/auth/principal.ts';
import type { DB } from '../infra/db/types.ts';
import { DomainError } from '../core/errors.ts';
import { HEADLINE } from './cohorts.ts';
import { TACSI_PILLARS, type TacsiPillar } from './privacy/index.ts';

export type TacsiFeed = 'weekly' | 'history' | 'pillars' | 'daily' | 'methodology' | 'sectors';

export interface FeedRequest {
  feed: TacsiFeed;
  /** Well-formed slug (shape already validated) or 'headline'; unused by methodology and sectors. */
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

function subscriberOf(principal: Principal): string {
  return principal.kind === 'subscriber' ? principal.subscriberId : NO_SUBSCRIBER;
}

/** The caller's grants, every active exclusive lock held by others, and the consumer sectors. */
async function queryAccessRows(db: Kysely<DB>, subscriberId: string): Promise<AccessRow[]> {
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
  return result.rows;
}

function snapshot(principal: Principal, today: string, rows: AccessRow[]): AccessSnapshot {
  // Scopes belong to the key, not the subscriber: taken from the principal on every request.
  return {
    isSubscriber: principal.kind === 'subscriber',
    canRead: principal.scopes.includes('read'),
    today,
    rows,
  };
}

interface CachedRows {
  rows: Promise<AccessRow[]>;
  expiresAt: number;
}

const MAX_CACHED_SUBSCRIBERS = 10_000;

/**
 * Loads the caller's grants, every active exclusive lock held by others, and the consumer sectors,
 * with the rows kept in memory per subscriber for `ttlMs` (0 = no caching). Validity
 * dates are still checked against `today` on every request, so an entitlement that starts or ends is
 * seen at once; only grants, revocations and locks written since the load wait for the TTL.
 * Concurrent misses for one subscriber share one query; a failed query is not cached.
 */
export class AccessCache {
  readonly #db: Kysely<DB>;
  readonly #ttlMs: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, CachedRows>();

  constructor(db: Kysely<DB>, ttlMs: number, clock: () => number = () => performance.now()) {
    this.#db = db;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  async load(principal: Principal, today: string): Promise<AccessSnapshot> {
    const subscriberId = subscriberOf(principal);
    if (this.#ttlMs <= 0) return snapshot(principal, today, await queryAccessRows(this.#db, subscriberId));
    const now = this.#clock();
    let entry = this.#entries.get(subscriberId);
    if (!entry || entry.expiresAt <= now) {
      entry = this.#remember(subscriberId, now);
    }
    return snapshot(principal, today, await entry.rows);
  }

  /** Forgets every cached subscriber (in-process grants and revocations can call it). */
  clear(): void {
    this.#entries.clear();
  }

  #remember(subscriberId: string, now: number): CachedRows {
    this.#entries.delete(subscriberId);
    if (this.#entries.size >= MAX_CACHED_SUBSCRIBERS) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    const entry: CachedRows = { rows: queryAccessRows(this.#db, subscriberId), expiresAt: now + this.#ttlMs };
    this.#entries.set(subscriberId, entry);
    entry.rows.catch(() => {
      if (this.#entries.get(subscriberId) === entry) this.#entries.delete(subscriberId);
    });
    return entry;
  }
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
    sectors: true,
  };
  const anySector = request.feed === 'methodology' || request.feed === 'sectors';
  const sectorOk = anySector || (knownSector && !lockedOut);
  return access.isSubscriber && access.canRead && sectorOk && rules[request.feed];
}

/** The one and only denial: same status, title, detail and headers whatever the reason. */
function notLicensed(): DomainError<'not_licensed'> {
  return new DomainError('not_licensed', 'This key is not licensed for the requested TACSI feed.');
}

/** Loads (through the cache) and decides in one step; throws the uniform denial. */
export async function assertLicensed(
  access: AccessCache,
  principal: Principal,
  today: string,
  request: FeedRequest,
): Promise<AccessSnapshot> {
  const snapshot = await access.load(principal, today);
  if (!isLicensed(snapshot, request)) throw notLicensed();
  return snapshot;
}

// Alphabetical, as the feeds' pillar objects are.
const BY_NAME = [...TACSI_PILLARS].sort();

export type SectorFeed = Exclude<TacsiFeed, 'methodology' | 'sectors'>;

export interface LicensedSector {
  slug: string;
  feeds: SectorFeed[];
  pillars: TacsiPillar[];
}

/**
 * What a subscriber may read today, sector by sector (the headline first when held): each answer
 * asked of `isLicensed` itself, so the list cannot disagree with the feeds. Sectors it may not read
 * (unlicensed, locked out by another's exclusivity) are absent, never listed as refused.
 */
export function licensedSectors(access: AccessSnapshot): LicensedSector[] {
  const slugs = access.rows.filter((r) => r.source === 'sector').map((r) => r.sector ?? '');
  const out: LicensedSector[] = [];
  for (const sector of [HEADLINE, ...[...new Set(slugs)].sort()]) {
    const pillars = BY_NAME.filter((pillar) => isLicensed(access, { feed: 'pillars', sector, pillar }));
    const feeds = (['weekly', 'history', 'pillars', 'daily'] as const).filter((feed) =>
      feed === 'pillars' ? pillars.length > 0 : isLicensed(access, { feed, sector }),
    );
    if (feeds.length) out.push({ slug: sector, feeds, pillars });
  }
  return out;
}

/** Display names of the given sector slugs; the headline is named here, as no sector row holds it. */
export async function sectorNames(db: Kysely<DB>, slugs: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>([[HEADLINE, 'Headline (all consumer sectors)']]);
  const wanted = slugs.filter((s) => s !== HEADLINE);
  if (wanted.length === 0) return names;
  const rows = await db.selectFrom('sectors').select(['slug', 'name']).where('slug', 'in', wanted).execute();
  for (const r of rows) names.set(r.slug, r.name);
  return names;
}
