/**
 * The campaign lifecycle, driven by the calendar from a scheduled job (never by reads):
 * draft -> active on the start date, phase after phase, active -> completed after the last week.
 *
 * Exactly-once events: every step updates its rows with the old status in the WHERE clause and
 * emits its `campaign.phase_changed` event in the same transaction, under a row lock on the
 * campaign. A retried, repeated or concurrent run finds the step already taken (the guard matches
 * no row) and its transaction is rolled back, so no step can be recorded or announced twice.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { emitEvent } from '../webhooks/emit.ts';
import type { DB } from '../infra/db/types.ts';
import { stageAt, stageStartsAt, type LaidOutPhase } from './phases.ts';
import { lifecycleCandidates, type PhaseRow } from './queries.ts';
import { compositeScoreAsOf } from '../workspace-overview/current-score.ts';
import { utcDay } from '../core/days.ts';

const BATCH = 200;

class StepAlreadyTaken extends Error {}

export interface LifecycleResult {
  /** Campaigns examined. */
  campaigns: number;
  /** Phase changes made (each fired one event). */
  transitions: number;
}

export function laidOut(rows: PhaseRow[]): LaidOutPhase[] {
  return rows.map((r) => ({ name: r.name, weeks: r.weeks, position: r.position, startWeek: r.start_week }));
}

/** Moves every campaign whose calendar has advanced to where the calendar says it is. */
export async function runCampaignLifecycle(ctx: AppContext): Promise<LifecycleResult> {
  const now = ctx.now();
  const today = utcDay(now);
  const result: LifecycleResult = { campaigns: 0, transitions: 0 };
  let afterId = '';
  for (;;) {
    const ids = await lifecycleCandidates(ctx.db, today, afterId, BATCH);
    for (const id of ids) {
      result.campaigns += 1;
      result.transitions += await advanceCampaign(ctx, id, now);
    }
    if (ids.length < BATCH) return result;
    afterId = ids[ids.length - 1]!;
  }
}

/** Takes one campaign through every step between its stored stage and the calendar's; returns the steps taken. */
export async function advanceCampaign(ctx: AppContext, campaignId: string, now: Date): Promise<number> {
  try {
    return await ctx.db.transaction().execute((trx) => advanceLocked(ctx, trx, campaignId, now));
  } catch (error) {
    if (error instanceof StepAlreadyTaken) return 0;
    throw error;
  }
}

async function advanceLocked(
  ctx: AppContext,
  trx: Transaction<DB>,
  campaignId: string,
  now: Date,
): Promise<number> {
  const campaign = await trx
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', campaignId)
    .forUpdate()
    .executeTakeFirst();
  if (!campaign || (campaign.status !== 'draft' && campaign.status !== 'active')) return 0;
  const rows = await trx
    .selectFrom('campaign_phases')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .orderBy('position')
    .execute();
  const phases = laidOut(rows);
  const target = stageAt(campaign.start_date, phases, now);
  let stage = campaign.status === 'draft' ? -1 : rows.findIndex((r) => r.status === 'active');
  if (stage === -1 && campaign.status === 'active') {
    throw new Error(`campaign ${campaignId} is active without an active phase`);
  }

  let steps = 0;
  // A campaign that was down for several boundaries takes each one in order, with one event
  // per boundary, so subscribers see every phase it went through (docs/campaigns.md).
  while (stage < target) {
    const from = stage >= 0 ? phases[stage]! : null;
    const to = stage + 1 < phases.length ? phases[stage + 1]! : null;
    const changedAt = stageStartsAt(campaign.start_date, phases, stage + 1);

    if (stage === -1) {
      const scoreAtStart = await compositeScoreAsOf(
        trx,
        campaign.workspace_id,
        // The key owner who created it reads it (null: the workspace's own).
        campaign.created_by ?? campaign.workspace_id,
        changedAt,
      );
      await guarded(
        trx
          .updateTable('campaigns')
          .set({ status: 'active', score_at_start: scoreAtStart })
          .where('id', '=', campaignId)
          .where('status', '=', 'draft')
          .executeTakeFirst(),
      );
    }
    if (from) await setPhaseStatus(trx, campaignId, from.position, 'active', 'completed');
    if (to) await setPhaseStatus(trx, campaignId, to.position, 'upcoming', 'active');
    if (!to) {
      await guarded(
        trx
          .updateTable('campaigns')
          .set({ status: 'completed' })
          .where('id', '=', campaignId)
          .where('status', '=', 'active')
          .executeTakeFirst(),
      );
    }
    // A campaign whose creator no longer manages the workspace (the client moved to another
    // agency) still runs its calendar, but announces nothing: its name and phases are its
    // creator's, and the workspace's current audience may not read it (tenancy.ts).
    if (await stillManaged(trx, campaign))
      await emitEvent(ctx, trx, {
        workspaceId: campaign.workspace_id,
        type: 'campaign.phase_changed',
        data: {
          campaign_id: campaign.id,
          workspace_id: campaign.workspace_id,
          campaign_name: campaign.name,
          from_phase: from ? from.name.toLowerCase() : null,
          to_phase: to ? to.name.toLowerCase() : null,
          changed_at: changedAt.toISOString(),
        },
      });
    stage += 1;
    steps += 1;
  }
  return steps;
}

async function stillManaged(
  trx: Transaction<DB>,
  campaign: { workspace_id: string; created_by: string | null },
): Promise<boolean> {
  if (campaign.created_by === null || campaign.created_by === campaign.workspace_id) return true;
  const ws = await trx
    .selectFrom('workspaces')
    .select('parent_id')
    .where('id', '=', campaign.workspace_id)
    .executeTakeFirst();
  return ws?.parent_id === campaign.created_by;
}

async function setPhaseStatus(
  trx: Transaction<DB>,
  campaignId: string,
  position: number,
  from: PhaseRow['status'],
  to: PhaseRow['status'],
): Promise<void> {
  await guarded(
    trx
      .updateTable('campaign_phases')
      .set({ status: to })
      .where('campaign_id', '=', campaignId)
      .where('position', '=', position)
      .where('status', '=', from)
      .executeTakeFirst(),
  );
}

async function guarded(update: Promise<{ numUpdatedRows: bigint }>): Promise<void> {
  const result = await update;
  if (result.numUpdatedRows !== 1n) throw new StepAlreadyTaken();
}
