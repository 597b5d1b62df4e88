import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

/**
 * The whole domain in one schema. Invariants live in the database (checks, foreign keys,
 * partial unique indexes) so no code path can write an invalid state, however it is raced.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE sectors (
      slug        text PRIMARY KEY CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND slug <> 'headline'),
      name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      is_consumer boolean NOT NULL DEFAULT true,
      created_at  timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE workspaces (
      id               text PRIMARY KEY,
      name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      plan             text NOT NULL CHECK (plan IN ('free', 'pro', 'agency', 'enterprise')),
      billing_period   text NOT NULL DEFAULT 'monthly' CHECK (billing_period IN ('monthly', 'annual')),
      parent_id        text REFERENCES workspaces(id) ON DELETE RESTRICT CHECK (parent_id <> id),
      account_type     text NOT NULL DEFAULT 'brand' CHECK (account_type IN ('brand', 'creator', 'agency')),
      org_type         text NOT NULL DEFAULT 'company'
                       CHECK (org_type IN ('company', 'nonprofit', 'individual', 'public_sector', 'agency')),
      is_white_labeled boolean NOT NULL DEFAULT false,
      sector_slug      text REFERENCES sectors(slug) ON DELETE RESTRICT,
      realtime_scoring boolean NOT NULL DEFAULT false,
      team_members     integer NOT NULL DEFAULT 1 CHECK (team_members >= 0),
      created_at       timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX workspaces_parent_idx ON workspaces (parent_id) WHERE parent_id IS NOT NULL;
    CREATE INDEX workspaces_sector_idx ON workspaces (sector_slug) WHERE sector_slug IS NOT NULL;

    CREATE TABLE tacsi_subscribers (
      id         text PRIMARY KEY,
      name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE api_keys (
      id            text PRIMARY KEY,
      workspace_id  text REFERENCES workspaces(id) ON DELETE CASCADE,
      subscriber_id text REFERENCES tacsi_subscribers(id) ON DELETE CASCADE,
      name          text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
      secret_hash   bytea NOT NULL CHECK (length(secret_hash) = 32),
      scopes        text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write']::text[]),
      expires_at    timestamptz,
      revoked_at    timestamptz,
      last_used_at  timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      -- A key belongs to exactly one owner: a workspace or an institutional subscriber.
      CHECK ((workspace_id IS NULL) <> (subscriber_id IS NULL))
    );
    CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id);
    CREATE INDEX api_keys_subscriber_idx ON api_keys (subscriber_id);

    CREATE TABLE platform_connections (
      id              text PRIMARY KEY,
      workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      platform        text NOT NULL CHECK (platform IN ('instagram', 'tiktok', 'youtube', 'twitter', 'facebook')),
      handle          text NOT NULL CHECK (length(handle) BETWEEN 1 AND 100),
      status          text NOT NULL DEFAULT 'connected' CHECK (status IN ('connected', 'disconnected')),
      followers       bigint NOT NULL DEFAULT 0 CHECK (followers >= 0),
      connected_at    timestamptz NOT NULL DEFAULT now(),
      last_sync_at    timestamptz,
      disconnected_at timestamptz,
      CHECK ((status = 'disconnected') = (disconnected_at IS NOT NULL))
    );
    -- At most one live connection per platform and workspace; history of old ones is kept.
    CREATE UNIQUE INDEX platform_connections_live_uq
      ON platform_connections (workspace_id, platform) WHERE status = 'connected';

    CREATE TABLE metric_snapshots (
      workspace_id         text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      platform             text NOT NULL CHECK (platform IN ('instagram', 'tiktok', 'youtube', 'twitter', 'facebook')),
      day                  date NOT NULL,
      followers            bigint NOT NULL CHECK (followers >= 0),
      posts                integer NOT NULL DEFAULT 0 CHECK (posts >= 0),
      impressions          bigint NOT NULL DEFAULT 0 CHECK (impressions >= 0),
      likes                bigint NOT NULL DEFAULT 0 CHECK (likes >= 0),
      comments             bigint NOT NULL DEFAULT 0 CHECK (comments >= 0),
      shares               bigint NOT NULL DEFAULT 0 CHECK (shares >= 0),
      saves                bigint NOT NULL DEFAULT 0 CHECK (saves >= 0),
      mentions             bigint NOT NULL DEFAULT 0 CHECK (mentions >= 0),
      sentiment_positive   integer NOT NULL DEFAULT 0 CHECK (sentiment_positive >= 0),
      sentiment_neutral    integer NOT NULL DEFAULT 0 CHECK (sentiment_neutral >= 0),
      sentiment_negative   integer NOT NULL DEFAULT 0 CHECK (sentiment_negative >= 0),
      profile_completeness real NOT NULL DEFAULT 1 CHECK (profile_completeness BETWEEN 0 AND 1),
      source               text NOT NULL DEFAULT 'connector' CHECK (source IN ('connector', 'import', 'sandbox')),
      PRIMARY KEY (workspace_id, platform, day)
    );

    CREATE TABLE audits (
      id                   text PRIMARY KEY,
      workspace_id         text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      status               text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'completed', 'failed')),
      platforms            text[] NOT NULL CHECK (cardinality(platforms) BETWEEN 1 AND 5),
      lookback_days        integer NOT NULL CHECK (lookback_days BETWEEN 1 AND 365),
      webhook_url          text,
      estimated_completion timestamptz NOT NULL,
      created_at           timestamptz NOT NULL DEFAULT now(),
      completed_at         timestamptz,
      failure_reason       text,
      score                real CHECK (score BETWEEN 0 AND 100),
      grade                text,
      pillars              jsonb,
      recommendations      jsonb,
      industry_benchmark   jsonb,
      formula_version      text,
      CHECK (status <> 'completed' OR (completed_at IS NOT NULL AND score IS NOT NULL AND pillars IS NOT NULL)),
      CHECK (status <> 'failed' OR failure_reason IS NOT NULL)
    );
    -- One running audit per workspace, enforced by the database rather than a read-then-write.
    CREATE UNIQUE INDEX audits_one_processing_uq ON audits (workspace_id) WHERE status = 'processing';
    CREATE INDEX audits_workspace_created_idx ON audits (workspace_id, created_at DESC);

    CREATE TABLE score_log (
      id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      audit_id        text REFERENCES audits(id) ON DELETE SET NULL,
      platform        text NOT NULL CHECK (platform IN ('instagram', 'tiktok', 'youtube', 'twitter', 'facebook')),
      tier            text NOT NULL,
      follower_count  bigint NOT NULL CHECK (follower_count >= 0),
      overall_score   real NOT NULL CHECK (overall_score BETWEEN 0 AND 100),
      grade           text NOT NULL,
      part1_score     real NOT NULL CHECK (part1_score BETWEEN 0 AND 100),
      part2_score     real NOT NULL CHECK (part2_score BETWEEN 0 AND 100),
      formula_version text NOT NULL,
      recorded_at     timestamptz NOT NULL DEFAULT now(),
      UNIQUE (audit_id, platform)
    );
    CREATE INDEX score_log_workspace_recorded_idx ON score_log (workspace_id, recorded_at DESC, id DESC);

    CREATE TABLE daily_scores (
      workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      day             date NOT NULL,
      score           real NOT NULL CHECK (score BETWEEN 0 AND 100),
      presence        real NOT NULL CHECK (presence BETWEEN 0 AND 100),
      reach           real NOT NULL CHECK (reach BETWEEN 0 AND 100),
      impact          real NOT NULL CHECK (impact BETWEEN 0 AND 100),
      sentiment       real NOT NULL CHECK (sentiment BETWEEN 0 AND 100),
      momentum        real NOT NULL CHECK (momentum BETWEEN 0 AND 100),
      formula_version text NOT NULL,
      PRIMARY KEY (workspace_id, day)
    );
    CREATE INDEX daily_scores_day_idx ON daily_scores (day);

    CREATE TABLE campaigns (
      id             text PRIMARY KEY,
      workspace_id   text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      objective      text CHECK (length(objective) <= 2000),
      start_date     date NOT NULL,
      duration_weeks integer NOT NULL CHECK (duration_weeks BETWEEN 1 AND 104),
      status         text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'completed', 'cancelled')),
      score_at_start real,
      created_at     timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX campaigns_workspace_idx ON campaigns (workspace_id, created_at DESC, id DESC);

    CREATE TABLE campaign_phases (
      campaign_id text NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      position    integer NOT NULL CHECK (position >= 0),
      name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      start_week  integer NOT NULL CHECK (start_week >= 1),
      weeks       integer NOT NULL CHECK (weeks >= 1),
      status      text NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'active', 'completed')),
      PRIMARY KEY (campaign_id, position)
    );

    CREATE TABLE events (
      id           text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      type         text NOT NULL CHECK (type IN ('audit.completed', 'score.changed', 'campaign.phase_changed')),
      data         jsonb NOT NULL,
      created_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX events_workspace_idx ON events (workspace_id, created_at DESC);

    CREATE TABLE webhooks (
      id              text PRIMARY KEY,
      workspace_id    text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      url             text NOT NULL CHECK (url LIKE 'https://%' AND length(url) <= 2048),
      events          text[] NOT NULL CHECK (cardinality(events) >= 1 AND
                        events <@ ARRAY['audit.completed', 'score.changed', 'campaign.phase_changed']::text[]),
      secret          text NOT NULL,
      status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
      disabled_reason text,
      created_at      timestamptz NOT NULL DEFAULT now(),
      deleted_at      timestamptz
    );
    CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id) WHERE deleted_at IS NULL;

    CREATE TABLE webhook_deliveries (
      id               text PRIMARY KEY,
      event_id         text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
      webhook_id       text REFERENCES webhooks(id) ON DELETE CASCADE,
      url              text NOT NULL,
      status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
      last_status_code integer,
      last_error       text,
      created_at       timestamptz NOT NULL DEFAULT now(),
      last_attempt_at  timestamptz,
      delivered_at     timestamptz,
      UNIQUE (event_id, webhook_id)
    );
    CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC);

    CREATE TABLE idempotency_keys (
      owner_key_id    text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
      idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
      route           text NOT NULL,
      request_hash    text NOT NULL,
      response_status integer,
      response_body   jsonb,
      created_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (owner_key_id, idempotency_key)
    );

    CREATE TABLE tacsi_entitlements (
      id            text PRIMARY KEY,
      subscriber_id text NOT NULL REFERENCES tacsi_subscribers(id) ON DELETE CASCADE,
      kind          text NOT NULL CHECK (kind IN ('sector_feed', 'daily_addon', 'pillar_feed', 'full_database')),
      sector_slug   text REFERENCES sectors(slug) ON DELETE RESTRICT,
      pillar        text CHECK (pillar IN ('presence', 'reach', 'impact', 'sentiment', 'momentum')),
      exclusive     boolean NOT NULL DEFAULT false,
      valid_from    date NOT NULL DEFAULT CURRENT_DATE,
      valid_until   date,
      revoked_at    timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      CHECK (valid_until IS NULL OR valid_until >= valid_from),
      CHECK (kind = 'full_database' OR sector_slug IS NOT NULL),
      CHECK (kind <> 'full_database' OR (sector_slug IS NULL AND NOT exclusive)),
      CHECK ((kind = 'pillar_feed') = (pillar IS NOT NULL)),
      CHECK (NOT exclusive OR kind = 'sector_feed')
    );
    CREATE INDEX tacsi_entitlements_subscriber_idx ON tacsi_entitlements (subscriber_id);
    -- Only one subscriber can hold a sector exclusively at a time.
    CREATE UNIQUE INDEX tacsi_entitlements_exclusive_uq
      ON tacsi_entitlements (sector_slug) WHERE exclusive AND revoked_at IS NULL;

    CREATE TABLE tacsi_cells (
      id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      sector              text NOT NULL CHECK (sector ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
      cadence             text NOT NULL CHECK (cadence IN ('weekly', 'daily')),
      period_end          date NOT NULL,
      methodology_version text NOT NULL,
      index_value         double precision NOT NULL,
      delta               double precision,
      presence            double precision NOT NULL,
      reach               double precision NOT NULL,
      impact              double precision NOT NULL,
      sentiment           double precision NOT NULL,
      momentum            double precision NOT NULL,
      cohort_band         text NOT NULL,
      published_at        timestamptz NOT NULL DEFAULT now(),
      -- A cell is published once: re-running a publication can never re-noise it.
      UNIQUE (sector, cadence, period_end, methodology_version)
    );
    CREATE INDEX tacsi_cells_feed_idx ON tacsi_cells (sector, cadence, period_end DESC);

    CREATE TABLE tacsi_privacy_ledger (
      id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      cell_id             bigint NOT NULL UNIQUE REFERENCES tacsi_cells(id) ON DELETE RESTRICT,
      sector              text NOT NULL,
      cadence             text NOT NULL,
      period_end          date NOT NULL,
      methodology_version text NOT NULL,
      mechanism           text NOT NULL,
      epsilon             double precision NOT NULL CHECK (epsilon > 0),
      noise_scale         double precision NOT NULL CHECK (noise_scale > 0),
      created_at          timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX tacsi_privacy_ledger_period_idx ON tacsi_privacy_ledger (sector, period_end);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DROP TABLE tacsi_privacy_ledger, tacsi_cells, tacsi_entitlements, idempotency_keys,
      webhook_deliveries, webhooks, events, campaign_phases, campaigns, daily_scores, score_log,
      audits, metric_snapshots, platform_connections, api_keys, tacsi_subscribers, workspaces, sectors;
  `,
  );
}
