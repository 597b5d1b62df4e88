import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type {
  MetricColumn,
  MetricRow,
  RequiredMetricColumn,
  SnapshotSource,
} from '../../core/metric-snapshot.ts';
import type {
  AccountType,
  BenchmarkIndustry,
  BillingPeriod,
  CampaignStatus,
  EventType,
  OrgType,
  Pillar,
  Plan,
  Platform,
  Scope,
  SyncErrorClass,
} from '../../core/catalog.ts';

/** Kysely's view of the schema in migrations/; test/db/schema-types.test.ts fails when the two disagree. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A NOT NULL timestamp without a default: every insert gives it. */
type RequiredTimestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** `date` columns travel as YYYY-MM-DD strings (type parsers in database.ts). */
type DateString = string;

export interface SectorsTable {
  slug: string;
  name: string;
  is_consumer: Generated<boolean>;
  benchmark_industry: ColumnType<
    BenchmarkIndustry | null,
    BenchmarkIndustry | null | undefined,
    BenchmarkIndustry | null
  >;
  created_at: CreatedAt;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: Plan;
  billing_period: Generated<BillingPeriod>;
  parent_id: string | null;
  account_type: Generated<AccountType>;
  org_type: Generated<OrgType>;
  is_white_labeled: Generated<boolean>;
  sector_slug: string | null;
  realtime_scoring: Generated<boolean>;
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
  /** 'test': a sandbox key (`bh_test_...`), issued only by `brandhealth demo`. */
  mode: Generated<KeyMode>;
  /** The person who created the key through /v1/keys; null for keys made by the CLI or sandbox. */
  created_by_person_id: Generated<string | null>;
}

export type KeyMode = 'live' | 'test';

export interface SandboxStateTable {
  singleton: Generated<boolean>;
  seeded_at: RequiredTimestamp;
}

export interface PlatformConnectionsTable {
  id: string;
  workspace_id: string;
  platform: Platform;
  handle: string;
  status: Generated<'connected' | 'reauth_required' | 'disconnected'>;
  followers: Generated<number>;
  connected_at: Generated<Date>;
  last_sync_at: Timestamp | null;
  disconnected_at: Timestamp | null;
  /** The platform's id of the authorised account (OAuth connections). */
  account_id: string | null;
  /** Sealed (key ring, purpose platform-token), key id beside. */
  access_token: string | null;
  access_token_key_id: string | null;
  refresh_token: string | null;
  refresh_token_key_id: string | null;
  token_expires_at: Timestamp | null;
  scopes: string | null;
  /** The scopes the platform granted at connect (migration 0067); NULL: not known. */
  granted_scopes: string[] | null;
  /** When the connection entered reauth_required. */
  reauth_at: Timestamp | null;
  /** Scheduled sync and health (migration 0051, docs/ingestion.md). */
  next_sync_at: Timestamp | null;
  sync_started_at: Timestamp | null;
  last_error_class: SyncErrorClass | null;
  last_error_at: Timestamp | null;
  consecutive_failures: Generated<number>;
  manual_sync_at: Timestamp | null;
  /** Connection health (migration 0066, docs/ingestion.md "Connection health"). */
  /** Why the connection is degraded or needs the brand; null when healthy. */
  health_reason: HealthReason | null;
  /** The permission a platform named as missing (health_reason permission_missing). */
  health_scope: string | null;
  /** The calls of the last sync that failed while the rest were stored (src/platforms/health.ts). */
  sync_failures: ColumnType<StoredSyncFailure[], string | undefined, string>;
  /** The token expiry platform.token_expiring was raised for (once per token). */
  token_warned_for: Timestamp | null;
}

/** Why a connection is not healthy, as stored (the reason codes of GET /v1/platforms `health`). */
export type HealthReason =
  | 'throttled'
  | 'quota_exhausted'
  | 'platform_unavailable'
  | 'token_refresh_failed'
  | 'token_refused'
  | 'refresh_refused'
  | 'permission_missing'
  | 'account_gone'
  | 'platform_refused'
  | 'invalid_response'
  | 'sync_failed';

/** One recorded partial failure (platform_connections.sync_failures). */
export interface StoredSyncFailure {
  call: string;
  metric: string | null;
  kind: string;
  scope: string | null;
  message: string;
  /** When it first failed in the current run of failures, and when it last did (ISO instants). */
  since: string;
  at: string;
}

export type { SyncErrorClass };

/** Pending OAuth authorisations (single-use, 10 minutes). */
export interface OauthStatesTable {
  /** The connect attempt's id (`oc_...`), as the API names it. */
  id: string;
  state_hash: string;
  workspace_id: string;
  platform: Platform;
  owner_key_id: string;
  code_verifier: string;
  code_verifier_key_id: string;
  redirect_uri: string;
  created_at: RequiredTimestamp;
  expires_at: RequiredTimestamp;
  used_at: Timestamp | null;
  outcome: 'connected' | 'denied' | 'failed' | 'pending_selection' | null;
  error: string | null;
  /** SHA-256 of the nonce in the starting browser's cookie (migration 0067). */
  binding_hash: string | null;
  /** The accounts the login gave, while the brand picks one (pending_selection). */
  candidates: ColumnType<unknown, string | null, string | null> | null;
  /** The user's tokens while pending_selection, sealed (purpose platform-token). */
  access_token: string | null;
  access_token_key_id: string | null;
  refresh_token: string | null;
  refresh_token_key_id: string | null;
  token_expires_at: Timestamp | null;
  granted_scopes: string[] | null;
  /** The connection the attempt made or restored. */
  connection_id: string | null;
}

/** The metric columns, from core/metric-snapshot.ts: the required ones have no default. */
type MetricColumns = {
  [C in MetricColumn]: C extends RequiredMetricColumn ? MetricRow[C] : Generated<MetricRow[C]>;
};

export interface MetricSnapshotsTable extends MetricColumns {
  workspace_id: string;
  platform: Platform;
  day: DateString;
  source: Generated<SnapshotSource>;
}

export type AuditStatus = 'processing' | 'completed' | 'failed';

export interface AuditsTable {
  id: string;
  workspace_id: string;
  status: Generated<AuditStatus>;
  platforms: Platform[];
  lookback_days: number;
  webhook_url: string | null;
  /** The workspace whose key started it; null = the workspace's own (system-made). See tenancy.ts. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** The one-off delivery's signing secret, sealed (src/infra/crypto); key id beside it. */
  webhook_secret: ColumnType<string | null, string | null | undefined, string | null>;
  webhook_secret_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  estimated_completion: RequiredTimestamp;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
  failure_reason: string | null;
  score: number | null;
  grade: string | null;
  pillars: ColumnType<unknown, string | null, string | null> | null;
  recommendations: ColumnType<unknown, string | null, string | null> | null;
  industry_benchmark: ColumnType<unknown, string | null, string | null> | null;
  formula_version: string | null;
  /** Formula v2 extension fields (migration 0060); null on v1 audits. */
  score_low: ColumnType<number | null, number | null | undefined, number | null>;
  score_high: ColumnType<number | null, number | null | undefined, number | null>;
  stale: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  latest_data_day: ColumnType<DateString | null, string | null | undefined, string | null>;
  authenticity_flags: ColumnType<unknown, string | null | undefined, string | null>;
  /** v3: the crisis signal the audit was answered with (CrisisSignal, active or not); null before v3. */
  crisis: ColumnType<unknown, string | null | undefined, string | null>;
  /** v3: the version of the baselines the audit was scored against. */
  baseline_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** v3: the score's drivers (ScoreDriver[], migration 0078); null before v3 and on audits stored without them. */
  drivers: ColumnType<unknown, string | null | undefined, string | null>;
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
  /** Part of the key (migration 0060): a day holds one row per formula. */
  formula_version: string;
  /** v2: the composite's 90% interval where it was computed (the last day of a recompute), else null. */
  score_low: number | null;
  score_high: number | null;
  /** v2: the composite grade with hysteresis along the stored series; null on v1 rows. */
  grade: string | null;
  /** v3: the crisis signal while one is active (CrisisSignal); null when calm and on v1/v2 rows. */
  crisis: ColumnType<unknown, string | null | undefined, string | null>;
  /** v3: the version of the baselines the day was scored against; null on v1/v2 rows. */
  baseline_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** v3: the day's drivers (ScoreDriver[], migration 0078) where its interval was computed, else null. */
  drivers: ColumnType<unknown, string | null | undefined, string | null>;
}

/** Progress of `brandhealth scores recompute` (migration 0060). */
export interface DailyScoreRecomputesTable {
  run_key: string;
  workspace_id: string;
  done_through: DateString;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export type { CampaignStatus };

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
  /** The workspace whose key created it; null = the workspace's own (system-made). See tenancy.ts. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** Sealed signing secret (src/infra/crypto); plaintext only while secret_key_id is NULL (pre-0030 rows). */
  secret: string;
  secret_key_id: string | null;
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
  /** One-off deliveries: their own sealed signing secret (null: sent unsigned). */
  secret: ColumnType<string | null, string | null | undefined, string | null>;
  secret_key_id: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** Legacy (pre-0030) plaintext responses; new ones are sealed in response_sealed. */
  response_body: ColumnType<unknown, string | null, string | null> | null;
  response_sealed: string | null;
  response_key_id: string | null;
  created_at: CreatedAt;
  /** While the request runs: when its claim lapses unless the running process renews it. */
  lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
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
  /** tacsi-m2 and later (NULL on tacsi-m1 cells): the band floor the noise is calibrated to, how the cell was made, its 95% margins. */
  band_floor: number | null;
  derivation: 'noised' | 'daily' | 'sectors' | null;
  moe_index_value: number | null;
  moe_pillars: number | null;
  /** JSON: the pillar noise as weighted discrete Gaussians [{weight, sigma2}] (exact rationals). */
  noise: unknown;
  /** 1 for the first publication of the period; each correction adds a vintage (never an update). */
  vintage: Generated<number>;
  /** Why this vintage was published; null on vintage 1, required on every later one. */
  correction_reason: string | null;
}

export interface TacsiHistogramsTable {
  id: Generated<number>;
  sector: string;
  period_end: DateString;
  methodology_version: string;
  edges: number[];
  shares: number[];
  cohort_band: string;
  band_floor: number;
  published_at: Generated<Date>;
}

export interface TacsiRhoLedgerTable {
  id: Generated<number>;
  scope: string;
  kind: 'daily' | 'weekly' | 'histogram';
  period_start: DateString;
  period_end: DateString;
  methodology_version: string;
  /** Exact charge in 1e-9 rho (rounded up); bigint column, read as a number (database.ts parsers). */
  rho_units: ColumnType<number, string | number | bigint, never>;
  rho: number;
  cell_id: number | null;
  histogram_id: number | null;
  /** The vintage of the cell this release noised (1 unless it is a correction). */
  vintage: Generated<number>;
  created_at: CreatedAt;
}

/** Who was charged each release of `tacsi_rho_ledger`: one row per entity and release. */
export interface TacsiEntityChargesTable {
  ledger_id: number;
  workspace_id: string;
}

/** A methodology notice, announced before it takes effect. */
export interface TacsiNoticesTable {
  id: string;
  title: string;
  detail: string;
  methodology_version: string | null;
  announced_at: Date;
  effective_on: DateString;
}

/** The tacsi-m2 cut-over, fixed at the first publication. */
export interface TacsiCutoverTable {
  methodology_version: string;
  periods_ending_on_or_after: DateString;
  fixed_at: Generated<Date>;
}

export interface WorkspaceSectorHistoryTable {
  workspace_id: string;
  sector_slug: string;
  valid_from: DateString;
  valid_until: DateString | null;
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

export interface PeopleTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  email_verified_at: Date | null;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id_hash: Buffer;
  person_id: string;
  csrf_token: string;
  created_at: CreatedAt;
  last_seen_at: Date;
  expires_at: Date;
  address: string;
}

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface MembershipsTable {
  workspace_id: string;
  person_id: string;
  role: Role;
  created_at: CreatedAt;
}

/** A workspace's OpenID Connect identity provider (migration 0081). */
export interface SsoSettingsTable {
  workspace_id: string;
  issuer: string;
  client_id: string;
  /** Sealed (purpose sso-client-secret, bound to the row). */
  client_secret: string;
  client_secret_key_id: string;
  allowed_domains: string[];
  default_role: Exclude<Role, 'owner'>;
  enabled: boolean;
  updated_at: Date;
}

/** A single sign-on in flight: single use, ten minutes. */
export interface SsoAttemptsTable {
  state_hash: string;
  /** SHA-256 of the random value in the starting browser's cookie. */
  binding_hash: string;
  workspace_id: string;
  nonce: string;
  /** Sealed (purpose oauth-verifier, bound to the row). */
  code_verifier: string;
  code_verifier_key_id: string;
  redirect_uri: string;
  return_path: string;
  /** The person signed in when the attempt started: their account may be linked to the identity. */
  link_person_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** Which identity (issuer, subject) of which provider is which person. */
export interface SsoIdentitiesTable {
  issuer: string;
  subject: string;
  person_id: string;
  workspace_id: string | null;
  created_at: CreatedAt;
}

export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  token_hash: Buffer;
  invited_by: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

export interface PasskeysTable {
  id: string;
  person_id: string;
  /** The credential id as base64url (what the browser reports it as). */
  credential_id: string;
  /** The COSE public key. */
  public_key: Buffer;
  /** The authenticator's signature counter at the last accepted use (0: the authenticator keeps none). */
  counter: Generated<number>;
  transports: Generated<string[]>;
  aaguid: string | null;
  /** The name the person chose for it. */
  name: string;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
}

export interface WebauthnChallengesTable {
  /** SHA-256 of the challenge id (sign-in) or of a random value (registration). */
  id_hash: Buffer;
  purpose: 'register' | 'sign_in';
  /** The base64url challenge the authenticator must sign. */
  challenge: string;
  /** The session a registration challenge was made for; null for sign-in. */
  session_hash: Buffer | null;
  rp_id: string;
  origin: string;
  expires_at: RequiredTimestamp;
  created_at: CreatedAt;
}

export type PersonTokenPurpose = 'verify_email' | 'reset_password';

export interface PersonTokensTable {
  token_hash: Buffer;
  person_id: string;
  purpose: PersonTokenPurpose;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export interface AuditLogTable {
  id: string;
  at: Date;
  workspace_id: string | null;
  actor_person_id: string | null;
  actor_key_id: string | null;
  action: string;
  target: string | null;
  address: string | null;
  detail: string | null;
}

export interface AnnotationsTable {
  id: string;
  workspace_id: string;
  day: DateString;
  text: string;
  category: string;
  author: string | null;
  created_at: CreatedAt;
}

export type AlertCondition =
  'score_below' | 'score_drop' | 'pillar_change' | 'grade_change' | 'crisis' | 'connection_needs_brand';

export interface AlertRulesTable {
  id: string;
  workspace_id: string;
  name: string;
  condition: AlertCondition;
  /** The condition's parameters (threshold, points, days, pillar, direction), as alerts/rules.ts reads them. */
  params: ColumnType<unknown, string | undefined, string>;
  email: Generated<string[]>;
  webhook: Generated<boolean>;
  slack_url: string | null;
  cooldown_minutes: Generated<number>;
  /** Off: the rule is kept with its history but not evaluated (migration 0079). */
  enabled: Generated<boolean>;
  created_at: CreatedAt;
}

export interface AlertEpisodesTable {
  id: string;
  rule_id: string;
  workspace_id: string;
  status: 'firing' | 'resolved';
  summary: string;
  drivers: ColumnType<unknown, string, string>;
  triggered_at: RequiredTimestamp;
  resolved_at: Timestamp | null;
  resolution: ColumnType<unknown, string | null | undefined, string | null> | null;
}

export interface AlertNotificationsTable {
  episode_id: string;
  phase: 'triggered' | 'resolved';
  channel: 'email' | 'slack';
  status: Generated<'pending' | 'sent' | 'failed'>;
  attempts: Generated<number>;
  last_error: string | null;
  sent_at: Timestamp | null;
}

export interface ReportBrandsTable {
  workspace_id: string;
  name: string;
  primary_color: string;
  accent_color: string;
  logo: Buffer | null;
  logo_type: 'image/png' | 'image/jpeg' | null;
  logo_width: number | null;
  logo_height: number | null;
  updated_at: RequiredTimestamp;
}

export interface ReportSchedulesTable {
  id: string;
  workspace_id: string;
  subject_workspace_id: string;
  scope: 'workspace' | 'all_clients';
  cadence: 'weekly' | 'monthly';
  recipients: string[];
  name: string;
  created_at: RequiredTimestamp;
  deleted_at: Timestamp | null;
}

export interface ReportsTable {
  id: string;
  schedule_id: string;
  workspace_id: string;
  period_start: DateString;
  period_end: DateString;
  status: Generated<'pending' | 'ready' | 'failed'>;
  content: ColumnType<unknown, string | null | undefined, string | null> | null;
  pdf: Buffer | null;
  csv: string | null;
  failure_reason: string | null;
  created_at: RequiredTimestamp;
  ready_at: Timestamp | null;
  /** When a job took the email to send (a lease: another may take it 10 minutes later). */
  mail_claimed_at: Timestamp | null;
  emailed_at: Timestamp | null;
}

/** Each post's comment count as the syncs read it: the highest seen and the latest (migration 0086). */
export interface PostCommentCountsTable {
  workspace_id: string;
  platform: string;
  post_id: string;
  post_day: ColumnType<string, string, string>;
  max_seen: ColumnType<number, number, number>;
  last_seen: ColumnType<number, number, number>;
  updated_at: ColumnType<Date, Date, Date>;
}

export interface DB {
  post_comment_counts: PostCommentCountsTable;
  alert_rules: AlertRulesTable;
  alert_episodes: AlertEpisodesTable;
  alert_notifications: AlertNotificationsTable;
  audit_log: AuditLogTable;
  people: PeopleTable;
  sessions: SessionsTable;
  person_tokens: PersonTokensTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  sso_settings: SsoSettingsTable;
  sso_attempts: SsoAttemptsTable;
  sso_identities: SsoIdentitiesTable;
  sectors: SectorsTable;
  workspaces: WorkspacesTable;
  tacsi_subscribers: TacsiSubscribersTable;
  api_keys: ApiKeysTable;
  platform_connections: PlatformConnectionsTable;
  oauth_states: OauthStatesTable;
  metric_snapshots: MetricSnapshotsTable;
  audits: AuditsTable;
  score_log: ScoreLogTable;
  daily_scores: DailyScoresTable;
  daily_score_recomputes: DailyScoreRecomputesTable;
  campaigns: CampaignsTable;
  campaign_phases: CampaignPhasesTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  idempotency_keys: IdempotencyKeysTable;
  sandbox_state: SandboxStateTable;
  tacsi_entitlements: TacsiEntitlementsTable;
  tacsi_cells: TacsiCellsTable;
  tacsi_privacy_ledger: TacsiPrivacyLedgerTable;
  tacsi_histograms: TacsiHistogramsTable;
  tacsi_rho_ledger: TacsiRhoLedgerTable;
  tacsi_entity_charges: TacsiEntityChargesTable;
  tacsi_cutover: TacsiCutoverTable;
  tacsi_notices: TacsiNoticesTable;
  workspace_sector_history: WorkspaceSectorHistoryTable;
  annotations: AnnotationsTable;
  report_brands: ReportBrandsTable;
  report_schedules: ReportSchedulesTable;
  reports: ReportsTable;
}

export type Workspace = Selectable<WorkspacesTable>;
export type NewWorkspace = Insertable<WorkspacesTable>;
