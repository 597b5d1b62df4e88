import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

const EVENTS_BEFORE = `'audit.completed', 'score.changed', 'campaign.phase_changed', 'platform.connection_failed', 'platform.reauth_required', 'platform.token_expiring', 'platform.connection_degraded'`;
const EVENTS_AFTER = `${EVENTS_BEFORE}, 'alert.triggered', 'alert.resolved'`;

/**
 * Alerts (docs/alerts.md): a workspace's rules, their episodes (one open per rule at most: the partial
 * unique index is what makes two evaluations of one change open one episode), and the notifications of
 * each episode by channel. Two event types join the catalog.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    CREATE TABLE alert_rules (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      condition text NOT NULL CHECK (condition IN ('score_below', 'score_drop', 'pillar_change', 'grade_change',
        'crisis', 'connection_needs_brand')),
      params jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(params) = 'object'),
      email text[] NOT NULL DEFAULT '{}' CHECK (cardinality(email) <= 10),
      webhook boolean NOT NULL DEFAULT false,
      slack_url text CHECK (length(slack_url) <= 2048),
      cooldown_minutes integer NOT NULL DEFAULT 60 CHECK (cooldown_minutes BETWEEN 0 AND 10080),
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (cardinality(email) > 0 OR webhook OR slack_url IS NOT NULL)
    );
    CREATE INDEX alert_rules_workspace ON alert_rules (workspace_id, created_at);
    CREATE TABLE alert_episodes (
      id text PRIMARY KEY,
      rule_id text NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
      workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('firing', 'resolved')),
      summary text NOT NULL,
      drivers jsonb NOT NULL CHECK (jsonb_typeof(drivers) = 'object'),
      triggered_at timestamptz NOT NULL,
      resolved_at timestamptz,
      resolution jsonb CHECK (resolution IS NULL OR jsonb_typeof(resolution) = 'object'),
      CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
    );
    CREATE UNIQUE INDEX alert_episodes_one_open ON alert_episodes (rule_id) WHERE status = 'firing';
    CREATE INDEX alert_episodes_rule ON alert_episodes (rule_id, triggered_at DESC);
    CREATE INDEX alert_episodes_workspace ON alert_episodes (workspace_id, triggered_at DESC);
    CREATE TABLE alert_notifications (
      episode_id text NOT NULL REFERENCES alert_episodes(id) ON DELETE CASCADE,
      phase text NOT NULL CHECK (phase IN ('triggered', 'resolved')),
      channel text NOT NULL CHECK (channel IN ('email', 'slack')),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      sent_at timestamptz,
      PRIMARY KEY (episode_id, phase, channel)
    );
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_AFTER}));
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND
      events <@ ARRAY[${EVENTS_AFTER}]::text[]);
    `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `
    DELETE FROM events WHERE type IN ('alert.triggered', 'alert.resolved');
    UPDATE webhooks SET events = array_remove(array_remove(events, 'alert.triggered'), 'alert.resolved');
    DELETE FROM webhooks WHERE cardinality(events) = 0;
    ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
    ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND events <@ ARRAY[${EVENTS_BEFORE}]::text[]);
    ALTER TABLE events DROP CONSTRAINT events_type_check;
    ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_BEFORE}));
    DROP TABLE alert_notifications;
    DROP TABLE alert_episodes;
    DROP TABLE alert_rules;
    `,
  );
}
