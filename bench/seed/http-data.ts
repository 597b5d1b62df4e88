import { sql, type Kysely } from 'kysely';
import { createSector } from '../../src/admin/workspaces.ts';
import { createSubscriber, grantEntitlement } from '../../src/admin/tacsi.ts';
import type { StoredPillars } from '../../src/audits/complete.ts';
import type { DB } from '../../src/infra/db/types.ts';
import { between, prng } from '../../src/sandbox/random.ts';
import {
  compositeGradeV2 as compositeGrade,
  FORMULA_VERSION_V2 as FORMULA_VERSION,
  pillarGradeV2 as pillarGrade,
  round1,
  tierFor,
} from '../../src/scoring/engine/index.ts';
import { lastCompletedWeekEnd } from '../dates.ts';
import { CURRENT_METHODOLOGY_VERSION, cohortBand } from '../../src/tacsi/privacy/index.ts';
import type { Scale } from '../options.ts';
import { insertColumns } from './bulk.ts';
import { benchKey, type BenchKey } from './keys.ts';
import { addDays } from '../../src/core/days.ts';
import { PILLARS, PLATFORMS } from '../../src/core/catalog.ts';

export const FEED_SECTOR = 'bench-feed';

const SECRET_HASH = { secret_hash: `decode(t.secret_hash, 'hex')` };
/** Bench keys only read. */
const READ_KEY = { scopes: `ARRAY['read']::text[]`, name: `'bench'` };

export interface ScoreData {
  /** One key per agency, in agency order. */
  agencyKeys: BenchKey[];
  /** (key, workspace) pairs: every workspace with the key of its agency. */
  pairs: Array<{ key: BenchKey; workspaceId: string }>;
}

const agencyId = (a: number) => `ws_bench_ag_${String(a).padStart(4, '0')}`;
const clientId = (a: number, c: number) => `${agencyId(a)}_c${c}`;

/**
 * The score scenario's tenants: `agencies` agency workspaces with 9 clients each and one key per
 * agency; every workspace gets one completed audit row (score, grade and pillars in the shape
 * src/audits/complete.ts stores), so GET /v1/score answers from the audit path.
 */
export async function seedScoreData(
  db: Kysely<DB>,
  scale: Scale,
  seed: string,
  now: Date,
): Promise<ScoreData> {
  const n = scale.agencies;
  await sql`
    INSERT INTO workspaces (id, name, plan, account_type, org_type, created_at)
    SELECT 'ws_bench_ag_' || lpad(a::text, 4, '0'), 'Bench Agency ' || a, 'agency', 'agency', 'agency', ${now}
      FROM generate_series(0, ${n - 1}::int) AS a
  `.execute(db);
  await sql`
    INSERT INTO workspaces (id, name, plan, parent_id, account_type, org_type, created_at)
    SELECT 'ws_bench_ag_' || lpad(a::text, 4, '0') || '_c' || c, 'Bench Client ' || a || '-' || c, 'pro',
           'ws_bench_ag_' || lpad(a::text, 4, '0'),
           CASE WHEN c % 3 = 0 THEN 'creator' ELSE 'brand' END,
           CASE WHEN c % 3 = 0 THEN 'individual' ELSE 'company' END, ${now}
      FROM generate_series(0, ${n - 1}::int) AS a, generate_series(1, 9) AS c
  `.execute(db);

  const agencyKeys = Array.from({ length: n }, (_, a) => benchKey(seed, `agency-${a}`));
  await insertColumns(
    db,
    'api_keys',
    [
      ['id', 'text', agencyKeys.map((k) => k.id)],
      ['workspace_id', 'text', agencyKeys.map((_, a) => agencyId(a))],
      ['secret_hash', 'text', agencyKeys.map((k) => k.secretHash.toString('hex'))],
    ],
    { expressions: SECRET_HASH, constants: READ_KEY },
  );

  const workspaces: string[] = [];
  const pairs: ScoreData['pairs'] = [];
  for (let a = 0; a < n; a++) {
    const key = agencyKeys[a]!;
    for (let c = 0; c <= 9; c++) {
      const id = c === 0 ? agencyId(a) : clientId(a, c);
      workspaces.push(id);
      pairs.push({ key, workspaceId: id });
    }
  }
  await insertCompletedAudits(db, workspaces, seed, now);
  // Interleave tenants so consecutive requests hit different keys and workspaces.
  const rand = prng(`${seed}:pairs`);
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
  }
  return { agencyKeys, pairs };
}

async function insertCompletedAudits(db: Kysely<DB>, workspaces: readonly string[], seed: string, now: Date) {
  const at = `'${now.toISOString()}'::timestamptz`;
  const ids: string[] = [];
  const scores: number[] = [];
  const grades: string[] = [];
  const pillars: string[] = [];
  for (const ws of workspaces) {
    const rand = prng(`${seed}:audit:${ws}`);
    const stored = {} as StoredPillars;
    let sum = 0;
    for (const k of PILLARS) {
      const value = round1(between(rand, 20, 95));
      sum += value;
      stored[k] = { score: Math.round(value), change: '+0.0', grade: pillarGrade(value), value };
    }
    const score = round1(sum / PILLARS.length);
    ids.push(`aud_bench_${ws}`);
    scores.push(score);
    grades.push(compositeGrade(score));
    pillars.push(JSON.stringify(stored));
  }
  await insertColumns(
    db,
    'audits',
    [
      ['id', 'text', ids],
      ['workspace_id', 'text', workspaces],
      ['score', 'real', scores],
      ['grade', 'text', grades],
      ['pillars', 'text', pillars],
    ],
    {
      chunk: 5000,
      expressions: { pillars: 't.pillars::jsonb' },
      constants: {
        status: `'completed'`,
        platforms: `ARRAY['instagram', 'tiktok']::text[]`,
        lookback_days: '90',
        created_at: at,
        completed_at: at,
        estimated_completion: at,
        formula_version: `'${FORMULA_VERSION}'`,
        recommendations: `'[]'::jsonb`,
      },
    },
  );
}

/**
 * score_log rows of the first `exportAgencies` agencies and their clients (5 platforms each, one row
 * per platform per simulated audit, one day apart), for GET /v1/export/scores?limit=1000.
 */
/**
 * Read keys per export agency: the per-key rate limit is 600 requests a minute, and since export pages
 * are served from memory the scenario runs far above 50 keys x 10 requests a second (docs/performance.md).
 */
const EXPORT_KEYS_PER_AGENCY = 40;

export interface ExportData {
  scoreLogRows: number;
  /** EXPORT_KEYS_PER_AGENCY keys of each export agency, interleaved across agencies. */
  keys: BenchKey[];
}

export async function seedExportData(
  db: Kysely<DB>,
  scale: Scale,
  seed: string,
  now: Date,
): Promise<ExportData> {
  const perPlatform = Math.ceil(scale.scoreLogPerWorkspace / PLATFORMS.length);
  const cols = {
    workspace_id: [] as string[],
    platform: [] as string[],
    tier: [] as string[],
    follower_count: [] as number[],
    overall_score: [] as number[],
    grade: [] as string[],
    part1_score: [] as number[],
    part2_score: [] as number[],
    recorded_at: [] as string[],
  };
  for (let a = 0; a < Math.min(scale.exportAgencies, scale.agencies); a++) {
    for (let c = 0; c <= 9; c++) {
      const ws = c === 0 ? agencyId(a) : clientId(a, c);
      const rand = prng(`${seed}:scorelog:${ws}`);
      for (const platform of PLATFORMS) {
        const followers = Math.round(Math.exp(between(rand, Math.log(2_000), Math.log(2_500_000))));
        for (let i = 0; i < perPlatform; i++) {
          const part1 = round1(between(rand, 20, 95));
          const part2 = round1(between(rand, 20, 95));
          const overall = round1(0.4 * part1 + 0.6 * part2);
          cols.workspace_id.push(ws);
          cols.platform.push(platform);
          cols.tier.push(tierFor(followers));
          cols.follower_count.push(followers);
          cols.overall_score.push(overall);
          cols.grade.push(compositeGrade(overall));
          cols.part1_score.push(part1);
          cols.part2_score.push(part2);
          cols.recorded_at.push(new Date(now.getTime() - i * 86_400_000).toISOString());
        }
      }
    }
  }
  const agencies = Math.min(scale.exportAgencies, scale.agencies);
  const owners = Array.from({ length: EXPORT_KEYS_PER_AGENCY * agencies }, (_, i) => i % agencies);
  const keys = owners.map((a, i) => benchKey(seed, `export-${a}-${Math.floor(i / agencies)}`));
  await insertColumns(
    db,
    'api_keys',
    [
      ['id', 'text', keys.map((k) => k.id)],
      ['workspace_id', 'text', owners.map((a) => agencyId(a))],
      ['secret_hash', 'text', keys.map((k) => k.secretHash.toString('hex'))],
    ],
    { expressions: SECRET_HASH, constants: READ_KEY },
  );
  const scoreLogRows = await insertColumns(db, 'score_log', [
    ['workspace_id', 'text', cols.workspace_id],
    ['platform', 'text', cols.platform],
    ['tier', 'text', cols.tier],
    ['follower_count', 'bigint', cols.follower_count],
    ['overall_score', 'real', cols.overall_score],
    ['grade', 'text', cols.grade],
    ['part1_score', 'real', cols.part1_score],
    ['part2_score', 'real', cols.part2_score],
    ['formula_version', 'text', cols.workspace_id.map(() => FORMULA_VERSION)],
    ['recorded_at', 'timestamptz', cols.recorded_at],
  ]);
  return { scoreLogRows, keys };
}

export interface TacsiFeedData {
  keys: BenchKey[];
  sector: string;
  weeks: number;
}

/**
 * A consumer sector with `feedWeeks` published weekly cells (inserted directly: the feeds only read
 * tacsi_cells), one subscriber holding a Sector Feed for it, and `tacsiKeys` read keys of that
 * subscriber (the per-key rate limit is 600 a minute, so the load spreads over many keys).
 */
export async function seedTacsiFeed(
  db: Kysely<DB>,
  scale: Scale,
  seed: string,
  now: Date,
): Promise<TacsiFeedData> {
  await createSector(db, FEED_SECTOR, 'Bench feed sector', true);
  const subscriber = await createSubscriber(db, 'Bench Institute', 'sub_bench_feed');
  await grantEntitlement(db, {
    subscriberId: subscriber,
    kind: 'sector_feed',
    sector: FEED_SECTOR,
    validFrom: '2000-01-01',
  });

  // The last Sunday at least two weeks before the clock: the publication scenario owns later weeks.
  const lastEnd = addDays(lastCompletedWeekEnd(now), -14);
  const rand = prng(`${seed}:feed`);
  const ends: string[] = [];
  const values: number[][] = [];
  let level = 60;
  for (let w = scale.feedWeeks - 1; w >= 0; w--) {
    level = Math.min(95, Math.max(20, level + between(rand, -1.5, 1.5)));
    ends.push(addDays(lastEnd, -7 * w));
    const grid = (x: number) => Math.round(x * 100) / 100;
    values.push([grid(level), ...PILLARS.map(() => grid(level + between(rand, -10, 10)))]);
  }
  const deltas = values.map((v, i) =>
    i === 0 ? null : Math.round((v[0]! - values[i - 1]![0]!) * 100) / 100,
  );
  await insertColumns(
    db,
    'tacsi_cells',
    [
      ['period_end', 'date', ends],
      ['index_value', 'float8', values.map((v) => v[0])],
      ['delta', 'float8', deltas],
      ...PILLARS.map((p, i) => [p, 'float8', values.map((v) => v[i + 1])] as const),
    ],
    {
      constants: {
        sector: `'${FEED_SECTOR}'`,
        cadence: `'weekly'`,
        methodology_version: `'${CURRENT_METHODOLOGY_VERSION}'`,
        cohort_band: `'${cohortBand(250)}'`,
      },
    },
  );
  const keys = Array.from({ length: scale.tacsiKeys }, (_, i) => benchKey(seed, `tacsi-${i}`));
  await insertColumns(
    db,
    'api_keys',
    [
      ['id', 'text', keys.map((k) => k.id)],
      ['subscriber_id', 'text', keys.map(() => subscriber)],
      ['secret_hash', 'text', keys.map((k) => k.secretHash.toString('hex'))],
    ],
    { expressions: SECRET_HASH, constants: READ_KEY },
  );
  return { keys, sector: FEED_SECTOR, weeks: scale.feedWeeks };
}
