import type { Kysely } from 'kysely';
import { runStatements } from '../statements.ts';

const EVENTS_BEFORE = `'audit.completed', 'score.changed', 'campaign.phase_changed', 'platform.connection_failed', 'platform.reauth_required', 'platform.token_expiring', 'platform.connection_degraded', 'alert.triggered', 'alert.resolved'`;
const EVENTS_AFTER = `${EVENTS_BEFORE}, 'report.ready'`;

/**
 * Scheduled reports (docs/reports.md): an agency's white label (name, logo, colours), report
 * schedules (one workspace, or an agency across all its clients; weekly or monthly; recipients) and
 * the generated reports, at most one per schedule and period (the unique constraint is what makes
 * generation exactly-once). `report.ready` joins the event catalog.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `CREATE TABLE report_brands (
       workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
       name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
       primary_color text NOT NULL CHECK (primary_color ~ '^#[0-9a-f]{6}$'),
       accent_color text NOT NULL CHECK (accent_color ~ '^#[0-9a-f]{6}$'),
       logo bytea CHECK (octet_length(logo) <= 262144),
       logo_type text CHECK (logo_type IN ('image/png', 'image/jpeg')),
       logo_width integer,
       logo_height integer,
       updated_at timestamptz NOT NULL,
       CHECK ((logo IS NULL) = (logo_type IS NULL))
     );
     CREATE TABLE report_schedules (
       id text PRIMARY KEY,
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       subject_workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       scope text NOT NULL CHECK (scope IN ('workspace', 'all_clients')),
       cadence text NOT NULL CHECK (cadence IN ('weekly', 'monthly')),
       recipients text[] NOT NULL CHECK (cardinality(recipients) BETWEEN 1 AND 20),
       name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
       created_at timestamptz NOT NULL,
       deleted_at timestamptz,
       CHECK (scope = 'workspace' OR subject_workspace_id = workspace_id)
     );
     CREATE INDEX report_schedules_workspace ON report_schedules (workspace_id, created_at) WHERE deleted_at IS NULL;
     CREATE TABLE reports (
       id text PRIMARY KEY,
       schedule_id text NOT NULL REFERENCES report_schedules(id) ON DELETE CASCADE,
       workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
       period_start date NOT NULL,
       period_end date NOT NULL CHECK (period_end >= period_start),
       status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
       content jsonb,
       pdf bytea,
       csv text,
       failure_reason text,
       created_at timestamptz NOT NULL,
       ready_at timestamptz,
       mail_claimed_at timestamptz,
       emailed_at timestamptz,
       CONSTRAINT reports_once_per_period UNIQUE (schedule_id, period_start),
       CHECK (status <> 'ready' OR (content IS NOT NULL AND pdf IS NOT NULL AND csv IS NOT NULL AND ready_at IS NOT NULL))
     );
     CREATE INDEX reports_workspace_created ON reports (workspace_id, created_at DESC, id DESC);
     ALTER TABLE events DROP CONSTRAINT events_type_check;
     ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_AFTER}));
     ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
     ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND events <@ ARRAY[${EVENTS_AFTER}]::text[]);`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runStatements(
    db,
    `DELETE FROM events WHERE type = 'report.ready';
     UPDATE webhooks SET events = array_remove(events, 'report.ready');
     DELETE FROM webhooks WHERE cardinality(events) = 0;
     ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;
     ALTER TABLE webhooks ADD CONSTRAINT webhooks_events_check CHECK (cardinality(events) >= 1 AND events <@ ARRAY[${EVENTS_BEFORE}]::text[]);
     ALTER TABLE events DROP CONSTRAINT events_type_check;
     ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${EVENTS_BEFORE}));
     DROP TABLE reports;
     DROP TABLE report_schedules;
     DROP TABLE report_brands;`,
  );
}
