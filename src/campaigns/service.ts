import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import { currentlyManaged, visibleTo } from '../workspaces/tenancy.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { newId } from '../infra/ids.ts';
import { round1, signedDelta } from '../scoring/engine/index.ts';
import { laidOut } from './lifecycle.ts';
import {
  customPhasePlan,
  defaultPhasePlan,
  layOut,
  phaseProgress,
  weekNumbers,
  type PhasePlan,
} from './phases.ts';
import { insertCampaign, listCampaignRows, phasesOf, type CampaignRow, type PhaseRow } from './queries.ts';
import { dayStart, parseIsoInstant, utcDay } from '../core/days.ts';
import {
  MAX_NAME,
  MAX_OBJECTIVE,
  type Campaign,
  type CampaignList,
  type CampaignListItem as CampaignListItemSchema,
} from './schemas.ts';
import { currentCompositeScore } from '../workspace-overview/current-score.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';

export interface CreateCampaignInput {
  workspaceId: string;
  /** The key owner's workspace (tenancy.ts, currentlyManaged). */
  createdBy: string;
  name: string;
  objective?: string | undefined;
  startDate: string;
  durationWeeks: number;
  phases?: PhasePlan[] | undefined;
}

/** A campaign as the API answers it: the response schema's type. */
export type CampaignDetail = Static<typeof Campaign>;

export type CampaignListItem = Static<typeof CampaignListItemSchema>;

function invalidDates(detail: string): DomainError<'invalid_dates'> {
  return new DomainError('invalid_dates', detail, { parameter: 'start_date' });
}

/**
 * A campaign runs from 00:00 UTC on its start date, so "in the future" means a calendar day
 * after today (UTC). A date-time names the UTC day it falls on.
 */
export function startDateFor(value: string, now: Date): string {
  const parsed = parseIsoInstant(value);
  if (!parsed) {
    throw invalidDates(`start_date "${value}" is not an ISO 8601 date (YYYY-MM-DD) or date-time`);
  }
  const day = utcDay(parsed.instant);
  if (dayStart(day).getTime() <= now.getTime()) {
    throw invalidDates(
      `start_date must be in the future: a campaign starts at 00:00 UTC on its start date, so the earliest is ${utcDay(
        dayStart(utcDay(now), 1),
      )}`,
    );
  }
  return day;
}

export async function createCampaign(ctx: AppContext, input: CreateCampaignInput): Promise<CampaignDetail> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_NAME) {
    throw invalidParameter('name', `must be 1-${MAX_NAME} characters after trimming`);
  }
  const objective = input.objective?.trim() || null;
  if (objective && objective.length > MAX_OBJECTIVE) {
    throw invalidParameter('objective', `must be at most ${MAX_OBJECTIVE} characters`);
  }
  const now = ctx.now();
  const startDate = startDateFor(input.startDate, now);
  const plan: PhasePlan[] = input.phases
    ? customPhasePlan(input.phases, input.durationWeeks)
    : defaultPhasePlan(input.durationWeeks);
  const phases = layOut(plan);
  const created = await ctx.db.transaction().execute((trx) =>
    insertCampaign(
      trx,
      {
        id: newId('cmp'),
        workspaceId: input.workspaceId,
        createdBy: input.createdBy,
        name,
        objective,
        startDate,
        durationWeeks: input.durationWeeks,
        createdAt: now,
      },
      phases,
    ),
  );
  return toDetail(created.campaign, created.phases);
}

export function toDetail(campaign: CampaignRow, phases: PhaseRow[]): CampaignDetail {
  return {
    id: campaign.id,
    workspace_id: campaign.workspace_id,
    name: campaign.name,
    objective: campaign.objective,
    status: campaign.status,
    start_date: campaign.start_date,
    duration_weeks: campaign.duration_weeks,
    phases: phases.map((p) => ({
      name: p.name,
      weeks: weekNumbers({ startWeek: p.start_week, weeks: p.weeks }),
      status: p.status,
    })),
    created_at: campaign.created_at.toISOString(),
    ...(campaign.cancelled_at ? { cancelled_at: campaign.cancelled_at.toISOString() } : {}),
  };
}

/**
 * The phase a list item reports: the running one; else, when every phase is over, the last;
 * else the next to come (the first, for a draft).
 */
function currentPhase(phases: PhaseRow[]): PhaseRow {
  const running = phases.find((p) => p.status === 'active');
  if (running) return running;
  const upcoming = phases.find((p) => p.status === 'upcoming');
  return upcoming ?? phases[phases.length - 1]!;
}

export function toListItem(
  campaign: CampaignRow,
  phases: PhaseRow[],
  scoreCurrent: number | null,
  now: Date,
): CampaignListItem {
  const phase = currentPhase(phases);
  const laid = laidOut([phase])[0]!;
  let progress = 0;
  if (campaign.status === 'completed') progress = 100;
  else if (phase.status === 'active') {
    // A cancelled campaign's progress stops where it was cancelled.
    progress = phaseProgress(campaign.start_date, laid, campaign.cancelled_at ?? now);
  }
  // A draft has not started: its baseline is provisionally the current score.
  const atStart = campaign.status === 'draft' ? scoreCurrent : campaign.score_at_start;
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    current_phase: phase.name.toLowerCase(),
    phase_progress: progress,
    score_at_start: atStart === null ? null : round1(atStart),
    score_current: scoreCurrent === null ? null : round1(scoreCurrent),
    score_delta:
      atStart === null || scoreCurrent === null ? null : signedDelta(round1(scoreCurrent), round1(atStart)),
    start_date: campaign.start_date,
    created_at: campaign.created_at.toISOString(),
  };
}

export async function listCampaigns(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string,
  filter: { status: CampaignRow['status'] | undefined; limit: number; offset: number },
): Promise<Static<typeof CampaignList>> {
  const now = ctx.now();
  const [{ rows, total }, scoreCurrent] = await Promise.all([
    listCampaignRows(ctx.db, workspaceId, filter),
    currentCompositeScore(ctx, principal, workspaceId),
  ]);
  const phases = await phasesOf(
    ctx.db,
    rows.map((r) => r.id),
  );
  return {
    campaigns: rows.map((r) => toListItem(r, phases.get(r.id) ?? [], scoreCurrent, now)),
    total,
    limit: filter.limit,
    offset: filter.offset,
  };
}

/**
 * Cancels a draft or active campaign (an extension of the spec). Cancelling a cancelled one
 * answers its current state; a completed one cannot be cancelled (409).
 */
export async function cancelCampaign(
  ctx: AppContext,
  ownerWorkspaceId: string,
  campaignId: string,
): Promise<CampaignDetail> {
  const visible = await ctx.db
    .selectFrom('campaigns')
    .innerJoin('workspaces', 'workspaces.id', 'campaigns.workspace_id')
    .select('campaigns.id')
    .where('campaigns.id', '=', campaignId)
    .where(visibleTo(ownerWorkspaceId))
    .where(currentlyManaged('campaigns.created_by'))
    .executeTakeFirst();
  if (!visible) throw new DomainError('not_found', `No campaign "${campaignId}" is visible to this API key.`);

  const { campaign, phases } = await ctx.db.transaction().execute(async (trx) => {
    // The row lock orders this against a concurrent lifecycle step on the same campaign.
    const row = await trx
      .selectFrom('campaigns')
      .selectAll()
      .where('id', '=', campaignId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    let current = row;
    if (row.status === 'draft' || row.status === 'active') {
      current = await trx
        .updateTable('campaigns')
        .set({ status: 'cancelled', cancelled_at: ctx.now() })
        .where('id', '=', campaignId)
        .where('status', '=', row.status)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const phaseRows = await trx
      .selectFrom('campaign_phases')
      .selectAll()
      .where('campaign_id', '=', campaignId)
      .orderBy('position')
      .execute();
    return { campaign: current, phases: phaseRows };
  });
  if (campaign.status === 'completed') {
    throw new DomainError(
      'campaign_completed',
      `Campaign "${campaignId}" has completed and can no longer be cancelled.`,
    );
  }
  return toDetail(campaign, phases);
}
