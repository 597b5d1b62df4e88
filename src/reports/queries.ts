/**
 * The reports domain's tables: report_brands (an agency's white label), report_schedules and
 * reports. Every read of a schedule or report names its owner workspace in the query (the tenant
 * boundary); the jobs read by id, the id having come from a checked row.
 */
import { parentOf } from '../workspaces/queries.ts';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, ReportBrandsTable, ReportSchedulesTable, ReportsTable } from '../infra/db/types.ts';

type Db = Kysely<DB> | Transaction<DB>;

export type BrandRow = Selectable<ReportBrandsTable>;
export type ScheduleRow = Selectable<ReportSchedulesTable>;
export type ReportRow = Selectable<ReportsTable>;
/** A report without its rendered files: what lists show. */
export type ReportSummaryRow = Omit<ReportRow, 'pdf' | 'csv' | 'content' | 'mail_claimed_at'>;

const SUMMARY_COLUMNS = [
  'reports.id',
  'reports.schedule_id',
  'reports.workspace_id',
  'reports.period_start',
  'reports.period_end',
  'reports.status',
  'reports.failure_reason',
  'reports.created_at',
  'reports.ready_at',
  'reports.emailed_at',
] as const;

export async function brandOf(db: Db, workspaceId: string): Promise<BrandRow | undefined> {
  return db
    .selectFrom('report_brands')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * The white label a workspace's reports carry: its agency's (parent) when that agency set one, else
 * its own (an agency's own and all-clients reports). Undefined: no white label.
 */
export async function brandFor(db: Db, workspaceId: string): Promise<BrandRow | undefined> {
  const parentId = await parentOf(db, workspaceId);
  if (parentId === undefined) return undefined;
  const rows = await db
    .selectFrom('report_brands')
    .selectAll('report_brands')
    .select(sql<boolean>`report_brands.workspace_id = ${parentId}`.as('from_parent'))
    .where('workspace_id', 'in', parentId ? [parentId, workspaceId] : [workspaceId])
    .execute();
  const parent = rows.find((r) => r.from_parent);
  const row = parent ?? rows[0];
  if (!row) return undefined;
  const { from_parent: _ignored, ...brand } = row;
  return brand;
}

export async function upsertBrand(db: Db, row: BrandRow): Promise<BrandRow> {
  return db
    .insertInto('report_brands')
    .values(row)
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({
        name: row.name,
        primary_color: row.primary_color,
        accent_color: row.accent_color,
        logo: row.logo,
        logo_type: row.logo_type,
        logo_width: row.logo_width,
        logo_height: row.logo_height,
        updated_at: row.updated_at,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteBrand(db: Db, workspaceId: string): Promise<boolean> {
  const r = await db.deleteFrom('report_brands').where('workspace_id', '=', workspaceId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function insertSchedule(db: Db, row: Omit<ScheduleRow, 'deleted_at'>): Promise<ScheduleRow> {
  return db.insertInto('report_schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A live schedule of the owner, or undefined (unknown, another tenant's, deleted). */
export async function scheduleOf(db: Db, ownerId: string, id: string): Promise<ScheduleRow | undefined> {
  return db
    .selectFrom('report_schedules')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function scheduleById(db: Db, id: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom('report_schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSchedules(db: Db, ownerId: string): Promise<ScheduleRow[]> {
  return db
    .selectFrom('report_schedules')
    .selectAll()
    .where('workspace_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countSchedules(db: Db, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('report_schedules')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateSchedule(
  db: Db,
  ownerId: string,
  id: string,
  changes: { name?: string; recipients?: string[] },
): Promise<ScheduleRow | undefined> {
  return db
    .updateTable('report_schedules')
    .set(changes)
    .where('id', '=', id)
    .where('workspace_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function softDeleteSchedule(db: Db, ownerId: string, id: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('report_schedules')
    .set({ deleted_at: at })
    .where('id', '=', id)
    .where('workspace_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Live schedules of one cadence created before `before`, keyset-paged by id: the scheduler's input. */
export async function schedulesDue(db: Db, cadence: ScheduleRow['cadence'], before: Date, afterId: string) {
  return db
    .selectFrom('report_schedules')
    .selectAll()
    .where('cadence', '=', cadence)
    .where('deleted_at', 'is', null)
    .where('created_at', '<', before)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(200)
    .execute();
}

/**
 * Claims the period for the schedule: inserts the pending report unless one exists (the unique
 * constraint on (schedule_id, period_start) decides a race). The row inserted, or undefined.
 */
export async function claimPeriod(
  db: Db,
  row: { id: string; scheduleId: string; workspaceId: string; start: string; end: string; createdAt: Date },
): Promise<ReportSummaryRow | undefined> {
  return db
    .insertInto('reports')
    .values({
      id: row.id,
      schedule_id: row.scheduleId,
      workspace_id: row.workspaceId,
      period_start: row.start,
      period_end: row.end,
      created_at: row.createdAt,
    })
    .onConflict((oc) => oc.constraint('reports_once_per_period').doNothing())
    .returning(SUMMARY_COLUMNS.map((c) => c.slice('reports.'.length) as 'id'))
    .executeTakeFirst() as Promise<ReportSummaryRow | undefined>;
}

export async function reportOfPeriod(
  db: Db,
  scheduleId: string,
  start: string,
): Promise<ReportSummaryRow | undefined> {
  return db
    .selectFrom('reports')
    .select(SUMMARY_COLUMNS)
    .where('schedule_id', '=', scheduleId)
    .where('period_start', '=', start)
    .executeTakeFirst();
}

export async function reportSummary(db: Db, ownerId: string, id: string) {
  return db
    .selectFrom('reports')
    .select(SUMMARY_COLUMNS)
    .where('id', '=', id)
    .where('workspace_id', '=', ownerId)
    .executeTakeFirst();
}

/** One column of the owner's report (with its summary), or undefined. */
export async function reportWith<C extends 'content' | 'pdf' | 'csv'>(
  db: Db,
  ownerId: string,
  id: string,
  column: C,
) {
  return db
    .selectFrom('reports')
    .select([...SUMMARY_COLUMNS, `reports.${column}` as `reports.${C}`])
    .where('id', '=', id)
    .where('workspace_id', '=', ownerId)
    .executeTakeFirst();
}

export async function listReports(
  db: Db,
  ownerId: string,
  filter: { scheduleId?: string; limit: number; offset: number },
): Promise<{ rows: ReportSummaryRow[]; total: number }> {
  let base = db.selectFrom('reports').where('workspace_id', '=', ownerId);
  if (filter.scheduleId) base = base.where('schedule_id', '=', filter.scheduleId);
  const [rows, count] = await Promise.all([
    base
      .select(SUMMARY_COLUMNS)
      .orderBy('period_start', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function reportById(db: Db, id: string): Promise<ReportSummaryRow | undefined> {
  return db.selectFrom('reports').select(SUMMARY_COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Stores the rendered report; only a pending one becomes ready (a second run changes nothing). */
export async function markReady(
  trx: Transaction<DB>,
  id: string,
  files: { content: string; pdf: Buffer; csv: string; readyAt: Date },
): Promise<boolean> {
  const r = await trx
    .updateTable('reports')
    .set({ status: 'ready', content: files.content, pdf: files.pdf, csv: files.csv, ready_at: files.readyAt })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function markFailed(db: Db, id: string, reason: string): Promise<void> {
  await db
    .updateTable('reports')
    .set({ status: 'failed', failure_reason: reason })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Takes the report's email to send: true for one taker at a time (a lease of `leaseMs`, after which
 * a crashed taker's email may be taken again), false once it was sent.
 */
export async function claimMail(db: Db, id: string, now: Date, leaseMs: number): Promise<boolean> {
  const r = await db
    .updateTable('reports')
    .set({ mail_claimed_at: now })
    .where('id', '=', id)
    .where('status', '=', 'ready')
    .where('emailed_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('mail_claimed_at', 'is', null),
        eb('mail_claimed_at', '<', new Date(now.getTime() - leaseMs)),
      ]),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Gives the email back after a failed send, so the retry may take it at once. */
export async function releaseMail(db: Db, id: string): Promise<void> {
  await db
    .updateTable('reports')
    .set({ mail_claimed_at: null })
    .where('id', '=', id)
    .where('emailed_at', 'is', null)
    .execute();
}

export async function markEmailed(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable('reports').set({ emailed_at: at }).where('id', '=', id).execute();
}

/** The rendered files of a ready report (the job's mail step reads them back). */
export async function reportFiles(db: Db, id: string) {
  return db
    .selectFrom('reports')
    .select(['pdf', 'csv', 'content', 'emailed_at', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
}
