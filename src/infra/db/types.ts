import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Kysely's view of the schema in migrations/. Keep the two in step. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** `date` columns travel as YYYY-MM-DD strings (type parsers in database.ts). */
type DateString = string;

export const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitter', 'facebook'] as const;
export type Platform = (typeof PLATFORMS)[number];
export const PILLARS = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;
export type Pillar = (typeof PILLARS)[number];
export const PLANS = ['free', 'pro', 'agency', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];
export const ACCOUNT_TYPES = ['brand', 'creator', 'agency'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export const ORG_TYPES = ['company', 'nonprofit', 'individual', 'public_sector', 'agency'] as const;
export type OrgType = (typeof ORG_TYPES)[number];
export const EVENT_TYPES = ['audit.completed', 'score.changed', 'campaign.phase_changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface SectorsTable {
  slug: string;
  name: string;
  is_consumer: Generated<boolean>;
  created_at: CreatedAt;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: Plan;
  billing_period: Generated<'monthly' | 'annual'>;
  parent_id: string | null;
  account_type: Generated<AccountType>;
  org_type: Generated<OrgType>;
  is_white_labeled: Generated<boolean>;
  sector_slug: string | null;
  realtime_scoring: Generated<boolean>;
  team_members: Generated<number>;
  created_at: CreatedAt;
}

export interface TacsiSubscribersTable {
  id: string;
  name: string;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string | null;
  subscriber_id: string | null;
  name: Generated<string>;
  secret_hash: Buffer;
  scopes: Scope[];
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface PlatformConnectionsTable {
  id: string;
  workspace_id: string;
  platform: Platform;
  handle: string;
  status: Generated<'connected' | 'disconnected'>;
  followers: Generated<number>;
  connected_at: Generated<Date>;
  last_sync_at: Timestamp | null;
  disconnected_at: Timestamp | null;
}

export interface MetricSnapshotsTable {
  workspace_id: string;
  platform: Platform;
  day: DateString;
  followers: number;
  posts: Generated<number>;
  impressions: Generated<number>;
  likes: Generated<number>;
  comments: Generated<number>;
  shares: Generated<number>;
  saves: Generated<number>;
  mentions: Generated<number>;
  sentiment_positive: Generated<number>;
  sentiment_neutral: Generated<number>;
  sentiment_negative: Generated<number>;
  profile_completeness: Generated<number>;
  source: Generated<'connector' | 'import' | 'sandbox'>;
}

export type AuditStatus = 'processing' | 'completed' | 'failed';

export interface AuditsTable {
  id: string;
  workspace_id: string;
  status: Generated<AuditStatus>;
  platforms: Platform[];
  lookback_days: number;
  webhook_url: string | null;
  estimated_completion: Timestamp;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
  failure_reason: string | null;
  score: number | null;
  grade: string | null;
  pillars: ColumnType<unknown, string | null, string | null> | null;
  recommendations: ColumnType<unknown, string | null, string | null> | null;
  industry_benchmark: ColumnType<unknown, string | null, string | null> | null;
  formula_version: string | null;
}

export interface ScoreLogTable {
  id: Generated<number>;
  workspace_id: string;
  audit_id: string | null;
  platform: Platform;
  tier: string;
  follower_count: number;
  overall_score: number;
  grade: string;
  part1_score: number;
  part2_score: number;
  formula_version: string;
  recorded_at: Generated<Date>;
}

export interface DailyScoresTable {
  workspace_id: string;
  day: DateString;
  score: number;
  presence: number;
  reach: number;
  impact: number;
  sentiment: number;
  momentum: number;
  formula_version: string;
}

export type CampaignStatus = 'draft' | 'active' | 'completed' | 'cancelled';

export interface CampaignsTable {
  id: string;
  workspace_id: string;
  name: string;
  objective: string | null;
  start_date: DateString;
  duration_weeks: number;
  status: Generated<CampaignStatus>;
  score_at_start: number | null;
  created_at: CreatedAt;
  /** Set exactly when status is cancelled (migration 0020). */
  cancelled_at: Timestamp | null;
}

export interface CampaignPhasesTable {
  campaign_id: string;
  position: number;
  name: string;
  start_week: number;
  weeks: number;
  status: Generated<'upcoming' | 'active' | 'completed'>;
}

export interface EventsTable {
  id: string;
  workspace_id: string;
  type: EventType;
  data: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
}

export interface WebhooksTable {
  id: string;
  workspace_id: string;
  url: string;
  events: EventType[];
  secret: string;
  status: Generated<'active' | 'disabled'>;
  disabled_reason: string | null;
  created_at: CreatedAt;
  deleted_at: Timestamp | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  webhook_id: string | null;
  url: string;
  status: Generated<'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  created_at: CreatedAt;
  last_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
}

export interface IdempotencyKeysTable {
  owner_key_id: string;
  idempotency_key: string;
  route: string;
  request_hash: string;
  response_status: number | null;
  response_body: ColumnType<unknown, string | null, string | null> | null;
  created_at: CreatedAt;
}

export type EntitlementKind = 'sector_feed' | 'daily_addon' | 'pillar_feed' | 'full_database';

export interface TacsiEntitlementsTable {
  id: string;
  subscriber_id: string;
  kind: EntitlementKind;
  sector_slug: string | null;
  pillar: Pillar | null;
  exclusive: Generated<boolean>;
  valid_from: ColumnType<DateString, DateString | undefined, DateString>;
  valid_until: DateString | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface TacsiCellsTable {
  id: Generated<number>;
  sector: string;
  cadence: 'weekly' | 'daily';
  period_end: DateString;
  methodology_version: string;
  index_value: number;
  delta: number | null;
  presence: number;
  reach: number;
  impact: number;
  sentiment: number;
  momentum: number;
  cohort_band: string;
  published_at: Generated<Date>;
}

export interface TacsiPrivacyLedgerTable {
  id: Generated<number>;
  cell_id: number;
  sector: string;
  cadence: 'weekly' | 'daily';
  period_end: DateString;
  methodology_version: string;
  mechanism: string;
  epsilon: number;
  noise_scale: number;
  created_at: CreatedAt;
}

export interface DB {
  sectors: SectorsTable;
  workspaces: WorkspacesTable;
  tacsi_subscribers: TacsiSubscribersTable;
  api_keys: ApiKeysTable;
  platform_connections: PlatformConnectionsTable;
  metric_snapshots: MetricSnapshotsTable;
  audits: AuditsTable;
  score_log: ScoreLogTable;
  daily_scores: DailyScoresTable;
  campaigns: CampaignsTable;
  campaign_phases: CampaignPhasesTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  tacsi_entitlements: TacsiEntitlementsTable;
  tacsi_cells: TacsiCellsTable;
  tacsi_privacy_ledger: TacsiPrivacyLedgerTable;
}

export type Workspace = Selectable<WorkspacesTable>;
export type NewWorkspace = Insertable<WorkspacesTable>;
export type WorkspaceUpdate = Updateable<WorkspacesTable>;
