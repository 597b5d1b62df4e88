import { sql, type Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB, NewWorkspace } from '../infra/db/types.ts';
import { sandboxId } from './ids.ts';
import { sandboxKeys } from './keys.ts';
import type { SandboxManifest } from './manifest.ts';
import {
  brandProfile,
  emptyColumns,
  generateSnapshots,
  platformFollowers,
  type SnapshotColumns,
} from './metrics.ts';
import { pick, prng } from './random.ts';
import { addDays, utcDay } from '../core/days.ts';
import { METRIC_COLUMNS, METRIC_FIELDS } from '../core/metric-snapshot.ts';
import { PLATFORMS, type AccountType, type BillingPeriod, type Platform } from '../core/catalog.ts';
import { progress, stopwatch } from '../infra/wall-clock.ts';

/** Two years of daily history: enough for score history, benchmarks and the TACSI archive. */
export const HISTORY_DAYS = 730;

export const SANDBOX_SECTORS = [
  // The Daily add-on's sector: tacsi-m2 publishes daily cells only for cohorts of 250 or more.
  // The total stays 525 brands, so seeding takes as long as before.
  { slug: 'food-and-beverage', name: 'Food & Beverage', brands: 260, phase: 1.5 },
  { slug: 'fashion-apparel', name: 'Fashion & Apparel', brands: 105, phase: 0 },
  { slug: 'consumer-electronics', name: 'Consumer Electronics', brands: 65, phase: 3 },
  { slug: 'home-and-garden', name: 'Home & Garden', brands: 65, phase: 4.5 },
  // Below the 50-entity cohort minimum: never published.
  { slug: 'luxury-travel', name: 'Luxury Travel', brands: 30, phase: 2 },
] as const;

interface Named {
  key: string;
  name: string;
  plan: NewWorkspace['plan'];
  accountType?: AccountType;
  parent?: string;
  platforms?: Platform[];
  whiteLabel?: boolean;
  billing?: BillingPeriod;
  realtime?: boolean;
  sector?: string;
}

const NAMED: Named[] = [
  { key: 'free', name: 'Pebble Studio', plan: 'free', platforms: ['instagram'], sector: 'home-and-garden' },
  {
    key: 'pro',
    name: 'Acme Outdoor',
    plan: 'pro',
    platforms: ['instagram', 'tiktok', 'youtube'],
    sector: 'fashion-apparel',
  },
  { key: 'proNoPlatforms', name: 'Blank Slate Co', plan: 'pro' },
  {
    key: 'agency',
    name: 'Northwind Agency',
    plan: 'agency',
    accountType: 'agency',
    billing: 'annual',
    realtime: true,
    platforms: ['instagram', 'twitter'],
  },
  {
    key: 'client:bluebird',
    name: 'Bluebird Coffee',
    plan: 'pro',
    parent: 'agency',
    sector: 'food-and-beverage',
    platforms: ['instagram', 'tiktok'],
  },
  {
    key: 'client:juniper',
    name: 'Juniper Skincare',
    plan: 'pro',
    parent: 'agency',
    whiteLabel: true,
    platforms: ['instagram', 'youtube', 'facebook'],
  },
  {
    key: 'client:maya',
    name: 'Maya Creates',
    plan: 'pro',
    parent: 'agency',
    accountType: 'creator',
    platforms: ['tiktok', 'youtube'],
  },
  { key: 'otherAgency', name: 'Southwind Partners', plan: 'agency', accountType: 'agency' },
  {
    key: 'other:harbor',
    name: 'Harbor Bikes',
    plan: 'pro',
    parent: 'otherAgency',
    platforms: ['instagram', 'facebook'],
  },
  {
    key: 'other:lumen',
    name: 'Lumen Labs',
    plan: 'pro',
    parent: 'otherAgency',
    sector: 'consumer-electronics',
    platforms: ['twitter', 'youtube'],
  },
];

const ADJECTIVES = [
  'Amber',
  'Bright',
  'Cedar',
  'Copper',
  'Crimson',
  'Golden',
  'Indigo',
  'Ivory',
  'Maple',
  'Nordic',
  'Olive',
  'Silver',
  'Sunny',
  'Velvet',
  'Wild',
  'Urban',
];
const NOUNS = [
  'Bay',
  'Bloom',
  'Crest',
  'Field',
  'Forge',
  'Grove',
  'Harbor',
  'Loom',
  'Mills',
  'Peak',
  'Pine',
  'Ridge',
  'River',
  'Stone',
  'Trail',
  'Wave',
];

export function namedWorkspaceId(key: string): string {
  return sandboxId('ws', `named:${key}`);
}

/** Bulk insert through unnest(): one statement per few thousand rows, on PGlite and PostgreSQL alike. */
async function insertSnapshots(db: Kysely<DB>, c: SnapshotColumns): Promise<void> {
  if (!c.day.length) return;
  // Each metric array is cast to its column's type (core/metric-snapshot.ts).
  const metrics = METRIC_FIELDS.map((f) => sql`${c[f.column]}::${sql.raw(f.sqlType)}[]`);
  await sql`
    INSERT INTO metric_snapshots (workspace_id, platform, day, ${sql.join(METRIC_COLUMNS.map((m) => sql.ref(m)))}, source)
    SELECT *, 'sandbox' FROM unnest(${c.workspace_id}::text[], ${c.platform}::text[], ${c.day}::date[], ${sql.join(metrics)})
    ON CONFLICT DO NOTHING`.execute(db);
}

export interface Planned {
  id: string;
  platforms: Platform[];
  sectorPhase: number;
  /** Place of a sector brand in the population's composite distribution (brandProfile). */
  stratum?: number;
}

/** The consumer brands of every sector (rows and what gets metric history); pure, the same on every run. */
export function planSectorBrands(): { brandRows: NewWorkspace[]; brands: Planned[] } {
  const platformsAll: Platform[] = [...PLATFORMS];
  const brandRows: NewWorkspace[] = [];
  const brands: Planned[] = [];
  for (const sector of SANDBOX_SECTORS) {
    for (let i = 0; i < sector.brands; i++) {
      const r = prng(`${sector.slug}:${i}`);
      const id = sandboxId('ws', `brand:${sector.slug}:${i}`);
      brandRows.push({
        id,
        name: `${pick(r, ADJECTIVES)} ${pick(r, NOUNS)} ${sector.name.split(' ')[0]} ${i + 1}`,
        plan: 'pro',
        sector_slug: sector.slug,
        account_type: 'brand',
      });
      const count = 1 + Math.floor(r() * 2.2);
      const chosen = [...platformsAll].sort(() => r() - 0.5).slice(0, count);
      brands.push({ id, platforms: chosen, sectorPhase: sector.phase });
    }
  }
  // Strata (i + 0.5) / n dealt out in a seeded shuffle, so the sector brands as a whole have the
  // published grade shares rather than a sample's luck, and no sector gets a run of them.
  const order = brands.map((_, i) => i);
  const shuffle = prng('sandbox:strata');
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  order.forEach((slot, i) => (brands[i]!.stratum = (slot + 0.5) / brands.length));
  return { brandRows, brands };
}

/** The consumer sectors of the TACSI cohorts. */
async function seedSectors(db: Kysely<DB>): Promise<void> {
  for (const s of SANDBOX_SECTORS) {
    await db
      .insertInto('sectors')
      .values({ slug: s.slug, name: s.name, is_consumer: true })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** The named workspaces (the manifest's) and each sector's consumer brands; returns what gets metric history. */
async function seedWorkspaces(
  db: Kysely<DB>,
  log: (line: string) => void,
): Promise<{ ids: Map<string, string>; planned: Planned[] }> {
  // Named workspaces: the ones the manifest hands out keys for.
  const planned: Planned[] = [];
  const ids = new Map<string, string>();
  for (const n of NAMED) ids.set(n.key, namedWorkspaceId(n.key));
  const namedRows = NAMED.map((n) => ({
    id: ids.get(n.key)!,
    name: n.name,
    plan: n.plan,
    billing_period: n.billing ?? 'monthly',
    parent_id: n.parent ? ids.get(n.parent)! : null,
    account_type: n.accountType ?? 'brand',
    org_type:
      n.accountType === 'agency'
        ? ('agency' as const)
        : n.accountType === 'creator'
          ? ('individual' as const)
          : ('company' as const),
    is_white_labeled: n.whiteLabel ?? false,
    sector_slug: n.sector ?? null,
    realtime_scoring: n.realtime ?? false,
  }));
  // Parents first, so the foreign key holds within the batch.
  await db
    .insertInto('workspaces')
    .values(namedRows.filter((r) => !r.parent_id))
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db
    .insertInto('workspaces')
    .values(namedRows.filter((r) => r.parent_id))
    .onConflict((oc) => oc.doNothing())
    .execute();
  for (const n of NAMED)
    if (n.platforms) planned.push({ id: ids.get(n.key)!, platforms: n.platforms, sectorPhase: 0.7 });

  // Consumer brands of each sector: the TACSI cohorts.
  const { brandRows, brands } = planSectorBrands();
  planned.push(...brands);
  for (let i = 0; i < brandRows.length; i += 500) {
    await db
      .insertInto('workspaces')
      .values(brandRows.slice(i, i + 500))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  log(`workspaces: ${namedRows.length} named, ${brandRows.length} sector brands`);

  return { ids, planned };
}

/** Metric history and platform connections; history only for workspaces that have none yet. */
async function seedMetricHistory(
  db: Kysely<DB>,
  planned: Planned[],
  lastDay: string,
  now: Date,
  log: (line: string) => void,
): Promise<void> {
  const seeded = new Set(
    (await db.selectFrom('metric_snapshots').select('workspace_id').distinct().execute()).map(
      (r) => r.workspace_id,
    ),
  );
  const todo = planned.filter((p) => !seeded.has(p.id));
  const watch = stopwatch();
  const shown = progress(log, 'metric history', todo.length, 'workspaces');
  let generated = 0;
  let columns = emptyColumns();
  const connections: Array<{
    id: string;
    workspace_id: string;
    platform: Platform;
    handle: string;
    followers: number;
  }> = [];
  for (const p of planned) {
    // One profile per brand: its platforms share its quality (src/sandbox/metrics.ts).
    const profile = brandProfile(p.id, p.sectorPhase, p.stratum);
    for (const platform of p.platforms) {
      const followers = todo.includes(p)
        ? generateSnapshots(columns, p.id, platform, profile, lastDay, HISTORY_DAYS)
        : platformFollowers(profile, platform);
      connections.push({
        id: sandboxId('pc', `${p.id}:${platform}`),
        workspace_id: p.id,
        platform,
        handle: `@${p.id.slice(-8).toLowerCase()}_${platform.slice(0, 2)}`,
        followers,
      });
      if (columns.day.length >= 20_000) {
        await insertSnapshots(db, columns);
        columns = emptyColumns();
      }
    }
    if (todo.includes(p)) shown.done(++generated);
  }
  await insertSnapshots(db, columns);
  for (let i = 0; i < connections.length; i += 500) {
    await db
      .insertInto('platform_connections')
      .values(
        connections
          .slice(i, i + 500)
          .map((c) => ({ ...c, connected_at: new Date(`${lastDay}T00:00:00Z`), last_sync_at: now })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  log(`metric history: ${todo.length} workspaces x ${HISTORY_DAYS} days in ${watch.elapsed()}`);
}

interface KeyRow {
  name: string;
  workspace?: string;
  subscriber?: string;
  scopes: Array<'read' | 'write'>;
  revoked?: boolean;
  expired?: boolean;
}

/** TACSI subscribers, their entitlements, and a key row for each. */
async function seedSubscribers(db: Kysely<DB>): Promise<KeyRow[]> {
  const keyRows: KeyRow[] = [];
  const subscribers = [
    {
      key: 'tacsiSectorFeed',
      name: 'Sector Feed Capital',
      grants: [{ kind: 'sector_feed', sector: 'fashion-apparel' }],
    },
    {
      key: 'tacsiDaily',
      name: 'Daily Macro Fund',
      grants: [
        { kind: 'sector_feed', sector: 'food-and-beverage' },
        { kind: 'daily_addon', sector: 'food-and-beverage' },
      ],
    },
    {
      key: 'tacsiPillar',
      name: 'Pillar Analytics',
      grants: [{ kind: 'pillar_feed', sector: 'consumer-electronics', pillar: 'sentiment' }],
    },
    { key: 'tacsiFull', name: 'Full Database Research', grants: [{ kind: 'full_database' }] },
    {
      key: 'tacsiExclusive',
      name: 'Exclusive Holdings',
      grants: [{ kind: 'sector_feed', sector: 'home-and-garden', exclusive: true }],
    },
    {
      key: 'tacsiLockedOut',
      name: 'Late Arrival Partners',
      grants: [{ kind: 'sector_feed', sector: 'home-and-garden' }],
    },
  ] as const;
  for (const s of subscribers) {
    const subscriberId = sandboxId('sub', s.key);
    await db
      .insertInto('tacsi_subscribers')
      .values({ id: subscriberId, name: s.name })
      .onConflict((oc) => oc.doNothing())
      .execute();
    for (const [i, g] of s.grants.entries()) {
      await db
        .insertInto('tacsi_entitlements')
        .values({
          id: sandboxId('ent', `${s.key}:${i}`),
          subscriber_id: subscriberId,
          kind: g.kind,
          sector_slug: 'sector' in g ? g.sector : null,
          pillar: 'pillar' in g ? g.pillar : null,
          exclusive: 'exclusive' in g ? Boolean(g.exclusive) : false,
          valid_from: '2024-01-01',
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    keyRows.push({ name: s.key, subscriber: subscriberId, scopes: ['read'] });
  }

  return keyRows;
}

/** Seeds the base sandbox (idempotent: fixed ids, ON CONFLICT DO NOTHING). */
export async function seedBase(
  ctx: AppContext,
  log: (line: string) => void,
  previousKeys?: Record<string, unknown>,
): Promise<Omit<SandboxManifest, 'baseUrl' | 'docs' | 'openapi' | 'extras'>> {
  const { db } = ctx;
  const now = ctx.now();
  const lastDay = addDays(utcDay(now), -1);

  await seedSectors(db);
  const { ids, planned } = await seedWorkspaces(db, log);
  await seedMetricHistory(db, planned, lastDay, now, log);

  // Keys: random per database (src/sandbox/keys.ts), kept across re-runs through the manifest.
  const keyRows: KeyRow[] = [
    { name: 'free', workspace: 'free', scopes: ['read', 'write'] },
    { name: 'pro', workspace: 'pro', scopes: ['read', 'write'] },
    { name: 'proNoPlatforms', workspace: 'proNoPlatforms', scopes: ['read', 'write'] },
    { name: 'agency', workspace: 'agency', scopes: ['read', 'write'] },
    { name: 'agencyNoRead', workspace: 'agency', scopes: ['write'] },
    { name: 'otherAgency', workspace: 'otherAgency', scopes: ['read', 'write'] },
    { name: 'revoked', workspace: 'pro', scopes: ['read', 'write'], revoked: true },
    { name: 'expired', workspace: 'pro', scopes: ['read', 'write'], expired: true },
  ];

  keyRows.push(...(await seedSubscribers(db)));

  const keys = await sandboxKeys(
    db,
    keyRows.map((k) => ({
      name: k.name,
      workspaceId: k.workspace ? ids.get(k.workspace)! : undefined,
      subscriberId: k.subscriber,
      scopes: k.scopes,
      revoked: k.revoked,
      expired: k.expired,
    })),
    previousKeys,
  );

  return {
    keys: keys as SandboxManifest['keys'],
    workspaces: {
      free: ids.get('free')!,
      pro: ids.get('pro')!,
      proNoPlatforms: ids.get('proNoPlatforms')!,
      agency: ids.get('agency')!,
      agencyClients: ['client:bluebird', 'client:juniper', 'client:maya'].map((k) => ids.get(k)!),
      creatorClient: ids.get('client:maya')!,
      otherAgency: ids.get('otherAgency')!,
      otherAgencyClients: ['other:harbor', 'other:lumen'].map((k) => ids.get(k)!),
    },
    tacsi: {
      sectors: SANDBOX_SECTORS.map((s) => s.slug),
      smallSector: 'luxury-travel',
      licensedSector: 'fashion-apparel',
      unlicensedSector: 'food-and-beverage',
      dailySector: 'food-and-beverage',
      pillarFeed: { sector: 'consumer-electronics', pillar: 'sentiment' },
      lockedOutSector: 'home-and-garden',
    },
  };
}
