/**
 * Scheduled reports (docs/reports.md): an agency's white label, report schedules, generation (once
 * per schedule and period, by a durable job) and the generated reports as JSON, PDF and CSV.
 */
import { imageSize } from 'image-size';
import type { Static } from 'typebox';
import type { AppContext } from '../context.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { parseDay, utcDay } from '../core/days.ts';
import { newId } from '../infra/ids.ts';
import { sniff, SNIFF_BYTES } from '../studio/media-sniff.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';
import { lockWorkspace } from '../workspaces/queries.ts';
import * as q from './queries.ts';
import { latestClosedPeriod, periodContaining, type Cadence } from './periods.ts';
import {
  LOGO_MAX_PX,
  LOGO_MIN_PX,
  MAX_LOGO_BYTES,
  MAX_SCHEDULES,
  type Brand,
  type BrandBody,
  type CreateScheduleBody,
  type Report,
  type ReportList,
  type ReportSummary,
  type Schedule,
  type UpdateScheduleBody,
} from './schemas.ts';
import type { ReportContent } from './content.ts';
import { claimReport } from './jobs.ts';

export type BrandView = Static<typeof Brand>;
export type ScheduleView = Static<typeof Schedule>;
export type ReportSummaryView = Static<typeof ReportSummary>;

// ---- white label -------------------------------------------------------------------------------

function brandView(row: q.BrandRow): BrandView {
  return {
    workspace_id: row.workspace_id,
    name: row.name,
    primary_color: row.primary_color,
    accent_color: row.accent_color,
    logo:
      row.logo && row.logo_type
        ? {
            content_type: row.logo_type,
            width: row.logo_width ?? 0,
            height: row.logo_height ?? 0,
            bytes: row.logo.length,
          }
        : null,
    updated_at: row.updated_at.toISOString(),
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A logo as stored: PNG or JPEG by its magic bytes (the declared type is not trusted), within the
 * size and dimension limits, its dimensions read from the image header (image-size).
 */
export function validateLogo(base64: string): {
  data: Buffer;
  type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
} {
  const compact = base64.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length === 0) {
    throw new DomainError('invalid_logo', 'logo_base64 is not base64.', {
      parameter: 'logo_base64',
      message: 'not base64',
    });
  }
  const data = Buffer.from(compact, 'base64');
  if (data.length > MAX_LOGO_BYTES) {
    throw new DomainError(
      'content_too_large',
      `The logo is ${data.length} bytes; at most ${MAX_LOGO_BYTES} (${MAX_LOGO_BYTES / 1024} KB) are accepted.`,
    );
  }
  const kind = data.length >= SNIFF_BYTES ? sniff(data) : null;
  if (kind !== 'png' && kind !== 'jpg') {
    throw new DomainError('invalid_logo', 'The logo must be a PNG or JPEG image.', {
      parameter: 'logo_base64',
      message: kind ? `a ${kind} image; PNG or JPEG expected` : 'not a PNG or JPEG image',
    });
  }
  let size: { width?: number; height?: number };
  try {
    size = imageSize(data);
  } catch {
    size = {};
  }
  const { width, height } = size;
  if (!Number.isInteger(width) || !Number.isInteger(height)) {
    throw new DomainError('invalid_logo', 'The logo image is damaged: its dimensions cannot be read.', {
      parameter: 'logo_base64',
      message: 'unreadable image header',
    });
  }
  const w = width!;
  const h = height!;
  if (w < LOGO_MIN_PX || h < LOGO_MIN_PX || w > LOGO_MAX_PX || h > LOGO_MAX_PX) {
    throw new DomainError(
      'invalid_logo',
      `The logo is ${w}x${h} px; each side must be ${LOGO_MIN_PX}-${LOGO_MAX_PX} px.`,
      { parameter: 'logo_base64', message: `${w}x${h} px is outside ${LOGO_MIN_PX}-${LOGO_MAX_PX} px` },
    );
  }
  return { data, type: kind === 'png' ? 'image/png' : 'image/jpeg', width: w, height: h };
}

export async function putBrand(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  body: Static<typeof BrandBody>,
): Promise<BrandView> {
  const name = body.name.trim();
  if (!name) throw invalidParameter('name', 'must not be blank');
  const logo = body.logo_base64 ? validateLogo(body.logo_base64) : null;
  return ctx.db.transaction().execute(async (trx) => {
    await lockWorkspace(trx, principal.workspaceId);
    const existing = await q.brandOf(trx, principal.workspaceId);
    const keep = body.logo_base64 === undefined && existing;
    const row = await q.upsertBrand(trx, {
      workspace_id: principal.workspaceId,
      name,
      primary_color: body.primary_color.toLowerCase(),
      accent_color: body.accent_color.toLowerCase(),
      logo: logo?.data ?? (keep ? existing.logo : null),
      logo_type: logo?.type ?? (keep ? existing.logo_type : null),
      logo_width: logo?.width ?? (keep ? existing.logo_width : null),
      logo_height: logo?.height ?? (keep ? existing.logo_height : null),
      updated_at: ctx.now(),
    });
    return brandView(row);
  });
}

export async function getBrand(ctx: AppContext, principal: WorkspacePrincipal): Promise<BrandView> {
  const row = await q.brandOf(ctx.db, principal.workspaceId);
  if (!row)
    throw new DomainError(
      'not_found',
      'This workspace has no white label; PUT /v1/reports/branding sets one.',
    );
  return brandView(row);
}

export async function getBrandLogo(ctx: AppContext, principal: WorkspacePrincipal) {
  const row = await q.brandOf(ctx.db, principal.workspaceId);
  if (!row?.logo || !row.logo_type)
    throw new DomainError('not_found', 'This workspace has no white-label logo.');
  return { data: row.logo, type: row.logo_type };
}

export async function removeBrand(ctx: AppContext, principal: WorkspacePrincipal): Promise<void> {
  if (!(await q.deleteBrand(ctx.db, principal.workspaceId))) {
    throw new DomainError('not_found', 'This workspace has no white label.');
  }
}

// ---- schedules ---------------------------------------------------------------------------------

function scheduleView(row: q.ScheduleRow): ScheduleView {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    workspace_id: row.subject_workspace_id,
    cadence: row.cadence,
    recipients: row.recipients,
    created_at: row.created_at.toISOString(),
  };
}

/** Recipients trimmed, lower-cased and without duplicates, in the order given. */
function normaliseRecipients(list: readonly string[]): string[] {
  return [...new Set(list.map((r) => r.trim().toLowerCase()))];
}

const DEFAULT_NAME: Record<Cadence, string> = {
  weekly: 'Weekly brand report',
  monthly: 'Monthly brand report',
};

export async function createSchedule(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  body: Static<typeof CreateScheduleBody>,
): Promise<ScheduleView> {
  let subject: string;
  if (body.scope === 'all_clients') {
    if (body.workspace_id !== undefined && body.workspace_id !== principal.workspaceId) {
      throw invalidParameter(
        'workspace_id',
        "an all_clients schedule reports on the key owner's clients; leave it out",
      );
    }
    subject = principal.workspaceId;
  } else {
    subject = (await resolveWorkspace(ctx.db, principal, body.workspace_id)).id;
  }
  const name = body.name?.trim() || DEFAULT_NAME[body.cadence];
  const row = await ctx.db.transaction().execute(async (trx) => {
    // Serialises creation per workspace, so the cap holds under races.
    await lockWorkspace(trx, principal.workspaceId);
    if ((await q.countSchedules(trx, principal.workspaceId)) >= MAX_SCHEDULES) {
      throw new DomainError(
        'conflict',
        `A workspace can have at most ${MAX_SCHEDULES} report schedules; delete one first.`,
      );
    }
    return q.insertSchedule(trx, {
      id: newId('rps'),
      workspace_id: principal.workspaceId,
      subject_workspace_id: subject,
      scope: body.scope,
      cadence: body.cadence,
      recipients: normaliseRecipients(body.recipients),
      name,
      created_at: ctx.now(),
    });
  });
  return scheduleView(row);
}

function scheduleNotFound(id: string) {
  return new DomainError('not_found', `No report schedule "${id}" is visible to this API key.`);
}

export async function listSchedules(ctx: AppContext, principal: WorkspacePrincipal): Promise<ScheduleView[]> {
  return (await q.listSchedules(ctx.db, principal.workspaceId)).map(scheduleView);
}

export async function getSchedule(ctx: AppContext, principal: WorkspacePrincipal, id: string) {
  const row = await q.scheduleOf(ctx.db, principal.workspaceId, id);
  if (!row) throw scheduleNotFound(id);
  return scheduleView(row);
}

export async function updateSchedule(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
  body: Static<typeof UpdateScheduleBody>,
): Promise<ScheduleView> {
  const name = body.name?.trim();
  if (body.name !== undefined && !name) throw invalidParameter('name', 'must not be blank');
  const row = await q.updateSchedule(ctx.db, principal.workspaceId, id, {
    ...(name ? { name } : {}),
    ...(body.recipients ? { recipients: normaliseRecipients(body.recipients) } : {}),
  });
  if (!row) throw scheduleNotFound(id);
  return scheduleView(row);
}

/** Deletes the schedule: no more reports are generated; those already generated stay readable. */
export async function deleteSchedule(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
): Promise<void> {
  if (!(await q.softDeleteSchedule(ctx.db, principal.workspaceId, id, ctx.now()))) throw scheduleNotFound(id);
}

// ---- reports -----------------------------------------------------------------------------------

export function summaryView(row: q.ReportSummaryRow): ReportSummaryView {
  return {
    id: row.id,
    schedule_id: row.schedule_id,
    period_start: row.period_start,
    period_end: row.period_end,
    status: row.status,
    failure_reason: row.failure_reason,
    created_at: row.created_at.toISOString(),
    ready_at: row.ready_at?.toISOString() ?? null,
    emailed_at: row.emailed_at?.toISOString() ?? null,
    links: { pdf: `/v1/reports/${row.id}/pdf`, csv: `/v1/reports/${row.id}/csv` },
  };
}

/**
 * "Generate now": the report of the period holding `day` (default: the latest period that has
 * ended), claimed and enqueued once; a period already claimed answers its report (`created` false).
 */
export async function generateNow(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  scheduleId: string,
  day: string | undefined,
): Promise<{ created: boolean; report: ReportSummaryView }> {
  const schedule = await q.scheduleOf(ctx.db, principal.workspaceId, scheduleId);
  if (!schedule) throw scheduleNotFound(scheduleId);
  if (day !== undefined && parseDay(day) === null) {
    throw invalidParameter('period', `not a calendar day: ${JSON.stringify(day)}`);
  }
  const today = utcDay(ctx.now());
  const period =
    day === undefined ? latestClosedPeriod(schedule.cadence, today) : periodContaining(schedule.cadence, day);
  if (period.end >= today) {
    throw invalidParameter(
      'period',
      `the ${schedule.cadence === 'weekly' ? 'week' : 'month'} ${period.start} to ${period.end} has not ended yet; a report covers a whole period`,
    );
  }
  const claimed = await claimReport(ctx, schedule, period);
  return { created: claimed.created, report: summaryView(claimed.report) };
}

export async function listReports(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  filter: { schedule_id?: string; limit: number; offset: number },
): Promise<Static<typeof ReportList>> {
  const { rows, total } = await q.listReports(ctx.db, principal.workspaceId, {
    ...(filter.schedule_id ? { scheduleId: filter.schedule_id } : {}),
    limit: filter.limit,
    offset: filter.offset,
  });
  return { reports: rows.map(summaryView), total, limit: filter.limit, offset: filter.offset };
}

function reportNotFound(id: string) {
  return new DomainError('not_found', `No report "${id}" is visible to this API key.`);
}

export async function getReport(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
): Promise<Static<typeof Report>> {
  const row = await q.reportWith(ctx.db, principal.workspaceId, id, 'content');
  if (!row) throw reportNotFound(id);
  return { ...summaryView(row), content: (row.content as ReportContent | null) ?? null };
}

/** The report's PDF or CSV; a report that is not ready has neither (409 Report Not Ready). */
export async function reportFile<C extends 'pdf' | 'csv'>(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  id: string,
  column: C,
) {
  const row = await q.reportWith(ctx.db, principal.workspaceId, id, column);
  if (!row) throw reportNotFound(id);
  const file = (row as unknown as Record<C, q.ReportRow[C]>)[column];
  if (row.status !== 'ready' || file === null) {
    throw new DomainError(
      'report_not_ready',
      row.status === 'failed'
        ? `Report ${id} could not be generated: ${row.failure_reason ?? 'an internal error'}.`
        : `Report ${id} is still being generated; try again shortly (a report.ready event tells when).`,
    );
  }
  return {
    file: file as NonNullable<q.ReportRow[C]>,
    periodStart: row.period_start,
    periodEnd: row.period_end,
  };
}
