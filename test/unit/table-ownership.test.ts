/**
 * Each table is queried by the domain folder that owns it (docs/architecture.md). This reads every
 * Kysely query under src/ whose main table is named (selectFrom, updateTable, insertInto, deleteFrom)
 * and compares it with OWNER. Joins are not counted (a tenant check joins `workspaces` everywhere),
 * nor raw SQL text. KNOWN lists the folder/table pairs that still break the rule: a new pair fails
 * this test, and so does a listed pair that no longer occurs (take it off the list).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const OWNER: Record<string, string> = {
  workspaces: 'workspaces',
  people: 'people',
  audit_log: 'audit-log',
  sessions: 'people',
  person_tokens: 'people',
  passkeys: 'people',
  webauthn_challenges: 'people',
  memberships: 'people',
  invitations: 'people',
  sso_settings: 'people',
  sso_attempts: 'people',
  sso_identities: 'people',
  workspace_sector_history: 'workspaces',
  api_keys: 'infra',
  idempotency_keys: 'infra',
  platform_connections: 'platforms',
  oauth_states: 'platforms',
  metric_snapshots: 'ingest',
  audits: 'audits',
  score_log: 'audits',
  daily_scores: 'scoring',
  daily_score_recomputes: 'scoring',
  campaigns: 'campaigns',
  campaign_phases: 'campaigns',
  events: 'webhooks',
  webhooks: 'webhooks',
  webhook_deliveries: 'webhooks',
  sandbox_state: 'sandbox',
  sectors: 'tacsi',
  tacsi_subscribers: 'tacsi',
  tacsi_entitlements: 'tacsi',
  tacsi_cells: 'tacsi',
  tacsi_privacy_ledger: 'tacsi',
  tacsi_histograms: 'tacsi',
  tacsi_rho_ledger: 'tacsi',
  tacsi_entity_charges: 'tacsi',
  tacsi_cutover: 'tacsi',
  tacsi_notices: 'tacsi',
  post_comment_counts: 'ingest',
  annotations: 'annotations',
  alert_rules: 'alerts',
  alert_episodes: 'alerts',
  alert_notifications: 'alerts',
  report_brands: 'reports',
  report_schedules: 'reports',
  reports: 'reports',
};

/** Pairs (folder/table) that still query another domain's table. */
const KNOWN = new Set([
  'admin/api_keys',
  'admin/platform_connections',
  'admin/sectors',
  'admin/tacsi_entitlements',
  'admin/tacsi_subscribers',
  'admin/workspaces',
  'audits/workspaces',
  'campaigns/workspaces',
  'cli/sectors',
  'exports/workspaces',
  'ingest/platform_connections',
  'ingest/workspaces',
  'platforms/api_keys',
  'platforms/workspaces',
  'sandbox/api_keys',
  'sandbox/metric_snapshots',
  'sandbox/platform_connections',
  'sandbox/sectors',
  'sandbox/tacsi_entitlements',
  'sandbox/tacsi_subscribers',
  'sandbox/workspaces',
  'scoring/metric_snapshots',
  'webhooks/workspaces',
  'workspace-overview/workspaces',
  'workspaces/audits',
]);

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const QUERY = /\b(?:selectFrom|updateTable|insertInto|deleteFrom)\(\s*'([a-z_]+)/g;

describe('table ownership', () => {
  it('each table is queried by its owning domain folder, apart from the known pairs', () => {
    const src = join(import.meta.dirname, '../../src');
    const types = readFileSync(join(src, 'infra/db/types.ts'), 'utf8');
    const tables = [...types.slice(types.indexOf('export interface DB {')).matchAll(/^ {2}([a-z_]+):/gm)].map(
      (m) => m[1]!,
    );
    expect(
      tables.filter((t) => !(t in OWNER)),
      'tables missing from OWNER',
    ).toEqual([]);
    const found = new Set<string>();
    for (const file of files(src)) {
      if (file.includes('/infra/db/migrations/')) continue;
      const folder = relative(src, file).split('/')[0]!;
      for (const [, table] of readFileSync(file, 'utf8').matchAll(QUERY)) {
        // Names outside OWNER are a query's own CTEs.
        if (table! in OWNER && OWNER[table!] !== folder) found.add(`${folder}/${table}`);
      }
    }
    expect([...found].filter((p) => !KNOWN.has(p)).sort(), 'new queries of another domain’s table').toEqual(
      [],
    );
    expect([...KNOWN].filter((p) => !found.has(p)).sort(), 'listed pairs that no longer occur').toEqual([]);
  });
});
