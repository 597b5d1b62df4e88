import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { CampaignPhasesTable, CampaignsTable, DB } from '../infra/db/types.ts';
import { currentlyManaged } from '../workspaces/tenancy.ts';
import type { LaidOutPhase } from './phases.ts';
import type { TimelineSource } from '../annotations/timeline-types.ts';
import { serviceEntry } from '../annotations/timeline.ts';
import { dayStart } from '../core/days.ts';

export type CampaignRow = Selectable<CampaignsTable>;
export type PhaseRow = Selectable<CampaignPhasesTable>;
export type Db = Kysely<DB> | Transaction<DB>;

/** The statuses the spec names; cancelled campaigns are listed only when asked for by name. */
export const LISTED_BY_DEFAULT = ['draft', 'active', 'completed'] as const;

export async function insertCampaign(
  trx: Transaction<DB>,
  campaign: {
    id: string;
    workspaceId: string;
    /** The key owner's workspace: the agency's own work when it acts for a client. */
    createdBy: string;
    name: string;
    objective: string | null;
    startDate: string;
    durationWeeks: number;
    createdAt: Date;
  },
  phases: LaidOutPhase[],
): Promise<{ campaign: CampaignRow; phases: PhaseRow[] }> {
  const row = await trx
    .insertInto('campaigns')
    .values({
      id: campaign.id,
      workspace_id: campaign.workspaceId,
      created_by: campaign.createdBy,
      name: campaign.name,
      objective: campaign.objective,
      start_date: campaign.startDate,
      duration_weeks: campaign.durationWeeks,
      status: 'draft',
      score_at_start: null,
      created_at: campaign.createdAt,
      cancelled_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const phaseRows = await trx
    .insertInto('campaign_phases')
    .values(
      phases.map((p) => ({
        campaign_id: campaign.id,
        position: p.position,
        name: p.name,
        start_week: p.startWeek,
        weeks: p.weeks,
        status: 'upcoming' as const,
      })),
    )
    .returningAll()
    .execute();
  phaseRows.sort((a, b) => a.position - b.position);
  return { campaign: row, phases: phaseRows };
}

export async function phasesOf(db: Db, campaignIds: string[]): Promise<Map<string, PhaseRow[]>> {
  const byCampaign = new Map<string, PhaseRow[]>();
  if (campaignIds.length === 0) return byCampaign;
  const rows = await db
    .selectFrom('campaign_phases')
    .selectAll()
    .where('campaign_id', 'in', campaignIds)
    .orderBy('campaign_id')
    .orderBy('position')
    .execute();
  for (const row of rows) {
    const list = byCampaign.get(row.campaign_id) ?? [];
    list.push(row);
    byCampaign.set(row.campaign_id, list);
  }
  return byCampaign;
}

export async function listCampaignRows(
  db: Db,
  workspaceId: string,
  filter: { status: CampaignRow['status'] | undefined; limit: number; offset: number },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const statuses = filter.status ? [filter.status] : [...LISTED_BY_DEFAULT];
  const base = db
    .selectFrom('campaigns')
    .innerJoin('workspaces', 'workspaces.id', 'campaigns.workspace_id')
    .where('campaigns.workspace_id', '=', workspaceId)
    // Another agency's campaigns stay its own after the client moves (tenancy.ts).
    .where(currentlyManaged('campaigns.created_by'))
    .where('campaigns.status', 'in', statuses);
  const [rows, count] = await Promise.all([
    base
      .selectAll('campaigns')
      .orderBy('campaigns.created_at', 'desc')
      .orderBy('campaigns.id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/**
 * Campaigns whose calendar has moved past their stored stage: drafts whose start date has come,
 * and active campaigns whose running phase has ended. Keyset-paged by id.
 */
export async function lifecycleCandidates(
  db: Db,
  today: string,
  afterId: string,
  limit: number,
): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    SELECT c.id FROM campaigns c
    WHERE c.id > ${afterId} AND (
      (c.status = 'draft' AND c.start_date <= ${today}::date)
      OR (c.status = 'active' AND EXISTS (
        SELECT 1 FROM campaign_phases p
        WHERE p.campaign_id = c.id AND p.status = 'active'
          AND c.start_date + (p.start_week - 1 + p.weeks) * 7 <= ${today}::date)))
    ORDER BY c.id
    LIMIT ${limit}`.execute(db);
  return rows.rows.map((r) => r.id);
}

export interface PhaseStart {
  campaignId: string;
  campaignName: string;
  phaseName: string;
  /** The phase's first day: the campaign's start plus (start_week - 1) weeks. */
  day: string;
}

/**
 * The phases of a workspace's campaigns whose first day is in [fromDay, toDay], by day: campaigns visible
 * to the workspace's current manager (currentlyManaged) and not cancelled before the phase began. The
 * day decides, not the status the lifecycle job sets (it may not have run yet on that day).
 */
export async function phaseStartsBetween(
  db: Db,
  workspaceId: string,
  fromDay: string,
  toDay: string,
): Promise<PhaseStart[]> {
  const firstDay = sql<string>`campaigns.start_date + (campaign_phases.start_week - 1) * 7`;
  const rows = await db
    .selectFrom('campaign_phases')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_phases.campaign_id')
    .innerJoin('workspaces', 'workspaces.id', 'campaigns.workspace_id')
    .select([
      'campaigns.id as campaign_id',
      'campaigns.name as campaign_name',
      'campaign_phases.name as phase_name',
      sql<string>`to_char(${firstDay}, 'YYYY-MM-DD')`.as('day'),
    ])
    .where('campaigns.workspace_id', '=', workspaceId)
    .where(currentlyManaged('campaigns.created_by'))
    .where(firstDay, '>=', sql<string>`${fromDay}::date`)
    .where(firstDay, '<=', sql<string>`${toDay}::date`)
    .where((eb) =>
      eb.or([
        eb('campaigns.cancelled_at', 'is', null),
        eb(sql`(campaigns.cancelled_at AT TIME ZONE 'UTC')::date`, '>', firstDay),
      ]),
    )
    .orderBy(firstDay)
    .orderBy('campaigns.id')
    .orderBy('campaign_phases.position')
    .execute();
  return rows.map((r) => ({
    campaignId: r.campaign_id,
    campaignName: r.campaign_name,
    phaseName: r.phase_name,
    day: r.day,
  }));
}

/** The campaigns domain's timeline entries: the day each phase of a visible campaign began. */
export const phasesOnTimeline: TimelineSource = async (db, workspaceId, range) =>
  (await phaseStartsBetween(db, workspaceId, range.fromDay, range.toDay)).flatMap((p) => {
    const entry = serviceEntry(range, dayStart(p.day), {
      text: `Campaign "${p.campaignName}": ${p.phaseName} phase began`,
      category: 'campaign',
      kind: 'campaign_phase_started',
      ref: p.campaignId,
    });
    return entry ? [entry] : [];
  });
