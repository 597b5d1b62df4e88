/**
 * What a report says, gathered from the other domains' stored data for one period (docs/reports.md):
 * the score at the start and end of the period and its pillars, the pillar deltas (the drivers of
 * change shown for now), the daily history with the period's timeline (notes and the service's events:
 * src/annotations/timeline.ts), the audits completed in the
 * period with their recommendations, connection health and the campaigns with their phases. The
 * same content is the report's JSON, its PDF and its CSV.
 */
import { namedWorkspaces } from '../workspaces/queries.ts';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { PILLARS, type Pillar } from '../core/catalog.ts';
import { dayStart } from '../core/days.ts';
import { signedDelta, round1 } from '../scoring/engine/index.ts';
import { storedHistoryPoints } from '../scoring/history.ts';
import { CURRENT_FORMULA } from '../scoring/daily-scores.ts';
import { completedAuditsBetween, type CompletedAuditSummary } from '../audits/read.ts';
import { listConnections } from '../platforms/queries.ts';
import { healthOf } from '../platforms/health.ts';
import { platformEndpoints } from '../platforms/oauth-config.ts';
import { listCampaignRows, phasesOf } from '../campaigns/queries.ts';
import { weekNumbers } from '../campaigns/phases.ts';
import type { Period, Cadence } from './periods.ts';
import type { BrandRow, ScheduleRow } from './queries.ts';

export interface PillarChange {
  pillar: Pillar;
  start: number | null;
  end: number | null;
  change: string | null;
}

export interface WorkspaceSection {
  workspace_id: string;
  name: string;
  score: { start: number | null; end: number | null; change: string | null; formula_version: string };
  pillars: PillarChange[];
  history: { date: string; score: number }[];
  annotations: { day: string; category: string; text: string }[];
  audits: CompletedAuditSummary[];
  connections: {
    platform: string;
    handle: string;
    status: string;
    health: string;
    reason: string | null;
    last_sync: string | null;
  }[];
  campaigns: {
    name: string;
    status: string;
    start_date: string;
    current_phase: string | null;
    phases: { name: string; weeks: number[]; status: string }[];
  }[];
}

export interface ReportContent {
  report_id: string;
  title: string;
  /** Whose name the report carries: the agency's white label, or the service's own. */
  brand: { name: string; primary_color: string; accent_color: string; white_label: boolean };
  scope: ScheduleRow['scope'];
  cadence: Cadence;
  period: Period;
  generated_at: string;
  /** What "drivers of change" means in this version: pillar deltas from the start to the end of the period. */
  drivers_note: string;
  workspaces: WorkspaceSection[];
}

/** The service's own name and colours, for reports without a white label. */
export const DEFAULT_BRAND = {
  name: 'Brand Health',
  primary_color: '#1f3a5f',
  accent_color: '#e07a2e',
} as const;

export const DRIVERS_NOTE =
  'Drivers of change: each pillar from the first to the last stored day of the period; the largest moves explain the score change.';

/** Campaigns shown per workspace, newest first. */
const MAX_CAMPAIGNS = 20;

async function section(
  ctx: AppContext,
  db: Kysely<DB>,
  workspace: { id: string; name: string },
  period: Period,
): Promise<WorkspaceSection> {
  const from = dayStart(period.start);
  const to = dayStart(period.end, 1);
  const [points, timeline, audits, connections, campaigns] = await Promise.all([
    storedHistoryPoints(db, workspace.id, period.start, period.end, 'daily', CURRENT_FORMULA),
    ctx.timeline(db, workspace.id, period.start, period.end),
    completedAuditsBetween(db, workspace.id, from, to),
    listConnections(db, workspace.id),
    listCampaignRows(db, workspace.id, { status: undefined, limit: MAX_CAMPAIGNS, offset: 0 }),
  ]);
  const phases = await phasesOf(
    db,
    campaigns.rows.map((c) => c.id),
  );
  const first = points[0];
  const last = points[points.length - 1];
  const num = (v: number | string | undefined) => (v === undefined ? null : round1(Number(v)));
  const scoreStart = num(first?.score);
  const scoreEnd = num(last?.score);
  return {
    workspace_id: workspace.id,
    name: workspace.name,
    score: {
      start: scoreStart,
      end: scoreEnd,
      change: scoreStart === null || scoreEnd === null ? null : signedDelta(scoreEnd, scoreStart),
      formula_version: CURRENT_FORMULA,
    },
    pillars: PILLARS.map((pillar) => {
      const start = num(first?.[pillar]);
      const end = num(last?.[pillar]);
      return { pillar, start, end, change: start === null || end === null ? null : signedDelta(end, start) };
    }),
    history: points.map((p) => ({ date: p.day, score: round1(Number(p.score)) })),
    annotations: timeline.map((n) => ({ day: n.day, category: n.category, text: n.text })),
    audits,
    connections: connections
      .filter((c) => c.status !== 'disconnected')
      .map((c) => {
        const verdict = healthOf({ ...c, required_scopes: platformEndpoints(ctx.config, c.platform).scopes });
        return {
          platform: c.platform,
          handle: c.handle,
          status: c.status,
          health: verdict.status,
          reason: verdict.reason,
          last_sync: c.last_sync_at?.toISOString() ?? null,
        };
      }),
    campaigns: campaigns.rows.map((c) => {
      const rows = phases.get(c.id) ?? [];
      const running = rows.find((p) => p.status === 'active');
      return {
        name: c.name,
        status: c.status,
        start_date: c.start_date,
        current_phase: running?.name ?? null,
        phases: rows.map((p) => ({
          name: p.name,
          weeks: weekNumbers({ startWeek: p.start_week, weeks: p.weeks }),
          status: p.status,
        })),
      };
    }),
  };
}

/** The workspaces a schedule covers: its subject, or (all clients) the agency's clients by name. */
async function coveredWorkspaces(db: Kysely<DB>, schedule: ScheduleRow) {
  return namedWorkspaces(
    db,
    schedule.scope === 'workspace'
      ? { id: schedule.subject_workspace_id }
      : { clientsOf: schedule.workspace_id },
  );
}

export async function gatherContent(
  ctx: AppContext,
  input: { reportId: string; schedule: ScheduleRow; period: Period; brand: BrandRow | undefined },
): Promise<ReportContent> {
  const now = ctx.now();
  const { schedule, period, brand } = input;
  const workspaces = await coveredWorkspaces(ctx.db, schedule);
  const sections: WorkspaceSection[] = [];
  // One workspace at a time: an all-clients report of a large agency must not take every connection.
  for (const w of workspaces) sections.push(await section(ctx, ctx.db, w, period));
  return {
    report_id: input.reportId,
    title: schedule.name,
    brand: brand
      ? {
          name: brand.name,
          primary_color: brand.primary_color,
          accent_color: brand.accent_color,
          white_label: true,
        }
      : { ...DEFAULT_BRAND, white_label: false },
    scope: schedule.scope,
    cadence: schedule.cadence,
    period,
    generated_at: now.toISOString(),
    drivers_note: DRIVERS_NOTE,
    workspaces: sections,
  };
}
