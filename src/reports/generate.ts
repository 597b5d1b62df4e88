/**
 * One report's generation, as its job runs it: gather the content, render the PDF and CSV, store
 * them and emit `report.ready` in one transaction (a pending report becomes ready once), then email
 * the recipients. Each step checks what is done, so a retried or repeated run finishes the work
 * without doing it twice: the render when the report is still pending, the mail when it has not been
 * sent and no other run holds it (a lease; after a crash between the send and its record, the mail
 * is sent again when the lease lapses: at least once).
 */
import type { AppContext } from '../context.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { gatherContent, type ReportContent } from './content.ts';
import { renderCsv } from './render-csv.ts';
import { renderPdf } from './render-pdf.ts';
import * as q from './queries.ts';

/** How long one run holds a report's email before another may send it. */
const MAIL_LEASE_MS = 10 * 60_000;

export type GenerationOutcome = 'ready' | 'already-ready' | 'gone' | 'failed';

/** Renders and stores a pending report; emits report.ready when this run made it ready. */
export async function renderReport(ctx: AppContext, reportId: string): Promise<GenerationOutcome> {
  const report = await q.reportById(ctx.db, reportId);
  if (!report) return 'gone';
  if (report.status === 'failed') return 'failed';
  if (report.status === 'ready') return 'already-ready';
  const schedule = await q.scheduleById(ctx.db, report.schedule_id);
  if (!schedule) return 'gone';
  const brand = await q.brandFor(ctx.db, schedule.subject_workspace_id);
  const content = await gatherContent(ctx, {
    reportId,
    schedule,
    period: { start: report.period_start, end: report.period_end },
    brand,
  });
  const pdf = await renderPdf(content, brand?.logo ? { data: brand.logo } : null);
  const csv = renderCsv(content);
  const readyAt = ctx.now();
  const made = await ctx.db.transaction().execute(async (trx) => {
    if (!(await q.markReady(trx, reportId, { content: JSON.stringify(content), pdf, csv, readyAt })))
      return false;
    await emitEvent(ctx, trx, {
      workspaceId: report.workspace_id,
      type: 'report.ready',
      data: {
        report_id: reportId,
        schedule_id: schedule.id,
        workspace_id: report.workspace_id,
        period_start: report.period_start,
        period_end: report.period_end,
        pdf: `/v1/reports/${reportId}/pdf`,
        ready_at: readyAt.toISOString(),
      },
    });
    return true;
  });
  return made ? 'ready' : 'already-ready';
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The email of a report: its summary in text and HTML, the PDF and CSV attached, in the brand's name. */
export function reportEmail(content: ReportContent, recipients: string[], pdf: Buffer, csv: string) {
  const { brand, period } = content;
  const lines = content.workspaces.map((s) =>
    s.score.end === null
      ? `${s.name}: no stored score in this period`
      : `${s.name}: ${s.score.end.toFixed(1)} (${s.score.change ?? 'n/a'})`,
  );
  const subject = `${brand.name}: ${content.title}, ${period.start} to ${period.end}`;
  const text = [
    `${content.title}, ${period.start} to ${period.end}`,
    '',
    ...lines,
    '',
    'The full report is attached as PDF, and its data as CSV.',
    '',
    brand.name,
  ].join('\n');
  const html =
    `<div style="font-family:Helvetica,Arial,sans-serif">` +
    `<div style="background:${brand.primary_color};color:#fff;padding:16px;font-size:20px">${escapeHtml(brand.name)}</div>` +
    `<div style="height:4px;background:${brand.accent_color}"></div>` +
    `<h2>${escapeHtml(content.title)}, ${period.start} to ${period.end}</h2>` +
    `<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` +
    `<p>The full report is attached as PDF, and its data as CSV.</p></div>`;
  const file = `report-${period.start}-to-${period.end}`;
  return {
    to: recipients,
    subject,
    text,
    html,
    ...(brand.white_label ? { fromName: brand.name } : {}),
    attachments: [
      { filename: `${file}.pdf`, content: pdf, contentType: 'application/pdf' },
      { filename: `${file}.csv`, content: csv, contentType: 'text/csv; charset=utf-8' },
    ],
  };
}

/** Emails a ready report to its schedule's recipients unless that was done. */
export async function emailReport(ctx: AppContext, reportId: string): Promise<'sent' | 'skipped'> {
  const files = await q.reportFiles(ctx.db, reportId);
  if (!files || files.status !== 'ready' || files.emailed_at || !files.pdf || !files.csv) return 'skipped';
  const report = await q.reportById(ctx.db, reportId);
  const schedule = report && (await q.scheduleById(ctx.db, report.schedule_id));
  // A schedule deleted after the period closed sends nothing more; its reports stay readable.
  if (!schedule || schedule.deleted_at) return 'skipped';
  if (!(await q.claimMail(ctx.db, reportId, ctx.now(), MAIL_LEASE_MS))) return 'skipped';
  try {
    await ctx.mail.send(
      reportEmail(files.content as ReportContent, schedule.recipients, files.pdf, files.csv),
    );
  } catch (error) {
    await q.releaseMail(ctx.db, reportId);
    throw error;
  }
  await q.markEmailed(ctx.db, reportId, ctx.now());
  return 'sent';
}
