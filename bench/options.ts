import path from 'node:path';

/** What one bench run does, read from the environment (see docs/performance.md). */

export type Backend = 'pglite' | 'postgres';

export const SCENARIOS = [
  'healthz',
  'score',
  'tacsi-weekly',
  'tacsi-history',
  'export-scores',
  'audits',
  'tacsi-publication',
  'cold-start',
  'sync',
  'growth',
  'studio-text',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** Scenarios only run when named in BENCH_SCENARIOS (long, and on their own data). */
const OPT_IN: readonly ScenarioName[] = ['growth'];

/** The growth scenario's levels (BENCH_GROWTH_*): what is measured at each scale. */
export interface GrowthScale {
  workspaces: number[];
  entities: number[];
  auditDays: number[];
  auditWorkspaces: number;
}

export interface Scale {
  /** Agencies of the score scenario; each has 9 clients, so workspaces = 10 x agencies. */
  agencies: number;
  /** Agencies (the first ones) that also get score_log rows for the export scenario. */
  exportAgencies: number;
  /** score_log rows per workspace (5 platforms x audits). */
  scoreLogPerWorkspace: number;
  /** Weekly TACSI cells of the feed sector. */
  feedWeeks: number;
  /** Subscriber keys of the TACSI feed scenarios (the per-key rate limit is 600 a minute). */
  tacsiKeys: number;
  /** Audit scenario: workspaces x 5 platforms x days of snapshots. */
  auditWorkspaces: number;
  auditDays: number;
  /** Audits run one at a time to measure the time of one audit. */
  auditSequential: number;
  /** Concurrency of the throughput phase (the rest of the workspaces). */
  auditConcurrency: number;
  /** TACSI publication: entities over sectors, 7 days of daily scores each. */
  publicationEntities: number;
  publicationSectors: number;
  /** Sync scenario: connections of the large round, and of the small one it is compared with. */
  syncConnections: number;
  syncConnectionsSmall: number;
}

export interface BenchOptions {
  backend: Backend;
  /** The server to create the bench database on (PostgreSQL only); never used itself. */
  adminUrl: string | null;
  scenarios: ReadonlySet<ScenarioName>;
  /** Seconds of each measured HTTP run, and of its warm-up. */
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  authCacheTtlMs: number;
  scale: Scale;
  /** The service clock: fixed, so the generated data and every result are the same run after run. */
  now: Date;
  seed: string;
  resultsFile: string;
  /** When set, a CPU profile of each measured run is written there (<scenario>.cpuprofile). */
  cpuProfileDir: string | null;
  growth: GrowthScale;
}

/** Full scale, as the issue states it. */
const FULL: Scale = {
  agencies: 1000,
  exportAgencies: 50,
  scoreLogPerWorkspace: 120,
  feedWeeks: 312,
  tacsiKeys: 1000,
  auditWorkspaces: 1000,
  auditDays: 365,
  auditSequential: 100,
  auditConcurrency: 4,
  publicationEntities: 100_000,
  publicationSectors: 20,
  syncConnections: 10_000,
  syncConnectionsSmall: 1_000,
};

/**
 * PGlite is one WASM connection: every query, and so every audit, runs one at a time, so the audit
 * throughput phase uses concurrency 1 there. The data are the same size on both backends (PGlite
 * generates the 1.8M snapshot rows in under a minute).
 */
const PGLITE: Scale = { ...FULL, auditConcurrency: 1 };

function positive(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function levels(env: Record<string, string | undefined>, name: string, fallback: number[]): number[] {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (raw === 'none') return [];
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isInteger(v) || v <= 0))
    throw new Error(`${name} must be a comma-separated list of positive integers or none, got "${raw}"`);
  return [...new Set(values)].sort((a, b) => a - b);
}

export function benchOptions(env: Record<string, string | undefined> = process.env): BenchOptions {
  const adminUrl = env.DATABASE_URL?.trim() || null;
  const backend: Backend = adminUrl ? 'postgres' : 'pglite';
  const only = env.BENCH_SCENARIOS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of only ?? []) {
    if (!(SCENARIOS as readonly string[]).includes(name))
      throw new Error(`unknown scenario "${name}" in BENCH_SCENARIOS (use ${SCENARIOS.join(', ')})`);
  }
  const base = backend === 'postgres' ? FULL : PGLITE;
  const auditWorkspaces = Math.round(positive(env, 'BENCH_AUDIT_WORKSPACES', base.auditWorkspaces));
  return {
    backend,
    adminUrl,
    scenarios: new Set((only ?? SCENARIOS.filter((s) => !OPT_IN.includes(s))) as ScenarioName[]),
    durationSeconds: positive(env, 'BENCH_DURATION', 10),
    warmupSeconds: positive(env, 'BENCH_WARMUP', 2),
    connections: Math.round(positive(env, 'BENCH_CONNECTIONS', 64)),
    authCacheTtlMs: 60_000,
    scale: {
      ...base,
      auditWorkspaces,
      auditSequential: Math.min(base.auditSequential, Math.floor(auditWorkspaces / 2)),
      syncConnections: Math.round(positive(env, 'BENCH_SYNC_CONNECTIONS', base.syncConnections)),
      syncConnectionsSmall: Math.round(
        positive(
          env,
          'BENCH_SYNC_CONNECTIONS_SMALL',
          Math.min(base.syncConnectionsSmall, base.syncConnections),
        ),
      ),
    },
    now: new Date('2026-01-07T12:00:00Z'),
    seed: env.BENCH_SEED?.trim() || 'brand-health-bench-1',
    resultsFile: env.BENCH_RESULTS?.trim() || new URL('./results/latest.json', import.meta.url).pathname,
    cpuProfileDir: env.BENCH_CPU_PROF?.trim() ? path.resolve(env.BENCH_CPU_PROF.trim()) : null,
    growth: {
      workspaces: levels(env, 'BENCH_GROWTH_WORKSPACES', [10_000, 100_000, 1_000_000]),
      entities: levels(env, 'BENCH_GROWTH_ENTITIES', [100_000, 1_000_000]),
      auditDays: levels(env, 'BENCH_GROWTH_AUDIT_DAYS', [90, 365, 730]),
      auditWorkspaces: Math.round(positive(env, 'BENCH_GROWTH_AUDIT_WORKSPACES', 200)),
    },
  };
}
