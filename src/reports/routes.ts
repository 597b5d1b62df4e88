import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { CSV_CONTENT_TYPE } from '../infra/http/csv.ts';
import { errorResponses, json, problemResponse } from '../infra/http/schemas.ts';
import {
  createSchedule,
  deleteSchedule,
  generateNow,
  getBrand,
  getBrandLogo,
  getReport,
  getSchedule,
  listReports,
  listSchedules,
  putBrand,
  removeBrand,
  reportFile,
  updateSchedule,
} from './service.ts';
import { REPORT_CSV, csvRows } from './render-csv.ts';
import type { ReportContent as Content } from './content.ts';
import {
  Brand,
  BRAND_EXAMPLE,
  BrandBody,
  CreateScheduleBody,
  DeletedSchedule,
  GenerateBody,
  Report,
  REPORT_EXAMPLE,
  REPORT_SUMMARY_EXAMPLE,
  ReportId,
  ReportList,
  ReportListQuery,
  ReportSummary,
  Schedule,
  SCHEDULE_EXAMPLE,
  ScheduleId,
  ScheduleList,
  UpdateScheduleBody,
} from './schemas.ts';

// The plan rule is the webhooks' (Agency or above), declared the same way on every route.
const READ = {
  auth: { audience: 'workspace' as const, plan: 'agency' as const, action: 'score.read' as const },
};
const WRITE = {
  auth: { audience: 'workspace' as const, plan: 'agency' as const, action: 'report.manage' as const },
};
const TAGS = ['reports'];

const PDF = 'application/pdf';
const CSV_EXAMPLE = REPORT_CSV.text(csvRows(REPORT_EXAMPLE.content as Content))
  .split('\r\n')
  .slice(0, 4)
  .join('\r\n');
const pdfContent = {
  schema: Type.String({ format: 'binary', description: 'the report as PDF' }),
  example: '(a PDF document)',
};
const csvContent = {
  schema: Type.String({
    description:
      'RFC 4180 CSV with a header row: one row per score, pillar, day, note, audit, recommendation, connection, campaign and phase',
  }),
  example: `${CSV_EXAMPLE}\r\n`,
};

/** Which representation the Accept header prefers among JSON, PDF and CSV (JSON on a tie or none). */
export function negotiateReport(accept: string | undefined): 'json' | 'pdf' | 'csv' {
  if (!accept) return 'json';
  const q: Record<string, number> = {};
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qp = params.find((p) => p.startsWith('q='));
    const value = qp === undefined ? 1 : Number(qp.slice(2));
    q[type] = Number.isFinite(value) ? value : 0;
  }
  const json = q['application/json'] ?? 0;
  const pdf = q[PDF] ?? 0;
  const csv = q['text/csv'] ?? 0;
  if (pdf > 0 && pdf > json && pdf >= csv) return 'pdf';
  if (csv > 0 && csv > json) return 'csv';
  return 'json';
}

async function sendFile(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  kind: 'pdf' | 'csv',
) {
  const { file, periodStart, periodEnd } = await reportFile(app.ctx, workspacePrincipal(request), id, kind);
  return reply
    .type(kind === 'pdf' ? PDF : CSV_CONTENT_TYPE)
    .header('Content-Disposition', `attachment; filename="report-${periodStart}-to-${periodEnd}.${kind}"`)
    .header('Cache-Control', 'private, no-cache')
    .send(kind === 'pdf' ? (file as Buffer) : (file as string));
}

export async function reportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/reports/branding',
    {
      config: READ,
      schema: {
        operationId: 'getReportBranding',
        tags: TAGS,
        summary: "The workspace's white label (extension)",
        description: 'Name, colours and logo facts that reports of this workspace and of its clients carry.',
        response: { 200: json(Brand, 'The white label', BRAND_EXAMPLE), ...errorResponses(403, 404) },
      },
    },
    async (request) => getBrand(app.ctx, workspacePrincipal(request)),
  );

  app.put(
    '/v1/reports/branding',
    {
      config: WRITE,
      schema: {
        operationId: 'putReportBranding',
        tags: TAGS,
        summary: 'Set the white label (extension)',
        description:
          "An agency's name, colours (hex) and logo (PNG or JPEG, base64, at most 256 KB and 16-2048 px a side, " +
          "checked by its bytes): its clients' reports and report emails carry them and no other product name.",
        body: BrandBody,
        response: {
          200: json(Brand, 'The white label', BRAND_EXAMPLE),
          ...errorResponses(403, 413),
          422: problemResponse(422, undefined, {
            title: 'Invalid Logo',
            detail: 'The logo must be a PNG or JPEG image.',
          }),
        },
      },
    },
    async (request) => putBrand(app.ctx, workspacePrincipal(request), request.body),
  );

  app.delete(
    '/v1/reports/branding',
    {
      config: WRITE,
      schema: {
        operationId: 'deleteReportBranding',
        tags: TAGS,
        summary: 'Remove the white label (extension)',
        description: 'Reports generated from now on carry the default name and colours.',
        response: {
          200: json(Type.Object({ deleted: Type.Literal(true) }), 'Deleted', { deleted: true }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await removeBrand(app.ctx, workspacePrincipal(request));
      return { deleted: true as const };
    },
  );

  app.get(
    '/v1/reports/branding/logo',
    {
      config: READ,
      schema: {
        operationId: 'getReportBrandingLogo',
        tags: TAGS,
        summary: 'The white-label logo (extension)',
        description: 'The logo as uploaded (PNG or JPEG).',
        response: {
          200: {
            description: 'The logo',
            content: {
              'image/png': { schema: Type.String({ format: 'binary' }), example: '(a PNG image)' },
              'image/jpeg': { schema: Type.String({ format: 'binary' }), example: '(a JPEG image)' },
            },
          },
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const logo = await getBrandLogo(app.ctx, workspacePrincipal(request));
      return (reply as FastifyReply)
        .type(logo.type)
        .header('Cache-Control', 'private, no-cache')
        .send(logo.data);
    },
  );

  app.post(
    '/v1/report-schedules',
    {
      config: WRITE,
      schema: {
        operationId: 'createReportSchedule',
        tags: TAGS,
        summary: 'Schedule a report (extension)',
        description:
          'A weekly (Monday-Sunday, UTC) or monthly report of one workspace (the key owner or one of its clients) or, ' +
          "with scope all_clients, across all the key owner's clients; emailed to the recipients as PDF and CSV when each " +
          'period has ended. The first report is of the first period that ends after the schedule is created.',
        body: CreateScheduleBody,
        response: { 201: json(Schedule, 'The schedule', SCHEDULE_EXAMPLE), ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createSchedule(app.ctx, workspacePrincipal(request), request.body)),
  );

  app.get(
    '/v1/report-schedules',
    {
      config: READ,
      schema: {
        operationId: 'listReportSchedules',
        tags: TAGS,
        summary: 'List report schedules (extension)',
        description: "The key owner's live schedules, newest first.",
        response: {
          200: json(ScheduleList, 'The schedules', { schedules: [SCHEDULE_EXAMPLE] }),
          ...errorResponses(403),
        },
      },
    },
    async (request) => ({ schedules: await listSchedules(app.ctx, workspacePrincipal(request)) }),
  );

  app.get(
    '/v1/report-schedules/:schedule_id',
    {
      config: READ,
      schema: {
        operationId: 'getReportSchedule',
        tags: TAGS,
        summary: 'A report schedule (extension)',
        description: "Another tenant's or a deleted schedule is 404.",
        params: ScheduleId,
        response: { 200: json(Schedule, 'The schedule', SCHEDULE_EXAMPLE), ...errorResponses(403, 404) },
      },
    },
    async (request) => getSchedule(app.ctx, workspacePrincipal(request), request.params.schedule_id),
  );

  app.patch(
    '/v1/report-schedules/:schedule_id',
    {
      config: WRITE,
      schema: {
        operationId: 'updateReportSchedule',
        tags: TAGS,
        summary: 'Change a report schedule (extension)',
        description:
          'Its name or recipients; the cadence and scope are fixed (schedule another report instead).',
        params: ScheduleId,
        body: UpdateScheduleBody,
        response: { 200: json(Schedule, 'The schedule', SCHEDULE_EXAMPLE), ...errorResponses(403, 404) },
      },
    },
    async (request) =>
      updateSchedule(app.ctx, workspacePrincipal(request), request.params.schedule_id, request.body),
  );

  app.delete(
    '/v1/report-schedules/:schedule_id',
    {
      config: WRITE,
      schema: {
        operationId: 'deleteReportSchedule',
        tags: TAGS,
        summary: 'Delete a report schedule (extension)',
        description: 'No more reports are generated or emailed; reports already generated stay readable.',
        params: ScheduleId,
        response: {
          200: json(DeletedSchedule, 'Deleted', { id: SCHEDULE_EXAMPLE.id, deleted: true }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      await deleteSchedule(app.ctx, workspacePrincipal(request), request.params.schedule_id);
      return { id: request.params.schedule_id, deleted: true as const };
    },
  );

  app.post(
    '/v1/report-schedules/:schedule_id/generate',
    {
      config: { ...WRITE, optionalBody: true },
      // Its one field is optional, so a POST without a body means "the latest closed period".
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {} as typeof request.body;
      },
      schema: {
        operationId: 'generateReport',
        tags: TAGS,
        summary: 'Generate a report now (extension)',
        description:
          'The report of the period holding `period` (default: the latest period that has ended), generated and ' +
          'emailed by a job: 202 with the pending report. A period has at most one report: when it exists already, ' +
          '200 with it. The period must have ended.',
        params: ScheduleId,
        body: GenerateBody,
        response: {
          200: json(ReportSummary, 'The report of that period, generated earlier', REPORT_SUMMARY_EXAMPLE),
          202: json(ReportSummary, 'The report, being generated', {
            ...REPORT_SUMMARY_EXAMPLE,
            status: 'pending',
            ready_at: null,
            emailed_at: null,
          }),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request, reply) => {
      const { created, report } = await generateNow(
        app.ctx,
        workspacePrincipal(request),
        request.params.schedule_id,
        request.body.period,
      );
      return reply.code(created ? 202 : 200).send(report);
    },
  );

  app.get(
    '/v1/reports',
    {
      config: READ,
      schema: {
        operationId: 'listReports',
        tags: TAGS,
        summary: 'List generated reports (extension)',
        description: "The key owner's reports, newest period first; filter by schedule_id.",
        querystring: ReportListQuery,
        response: {
          200: json(ReportList, 'One page of reports', {
            reports: [REPORT_SUMMARY_EXAMPLE],
            total: 1,
            limit: 20,
            offset: 0,
          }),
          ...errorResponses(403),
        },
      },
    },
    async (request) => listReports(app.ctx, workspacePrincipal(request), request.query),
  );

  app.get(
    '/v1/reports/:report_id',
    {
      config: READ,
      schema: {
        operationId: 'getReport',
        tags: TAGS,
        summary: 'A generated report (extension)',
        description:
          'JSON (the content, null until ready), or with `Accept: application/pdf` the PDF and with `Accept: text/csv` ' +
          'the CSV (409 Report Not Ready until it is ready).',
        params: ReportId,
        response: {
          200: {
            description: 'The report',
            content: {
              'application/json': { schema: Report, example: REPORT_EXAMPLE },
              [PDF]: pdfContent,
              'text/csv': csvContent,
            },
          },
          ...errorResponses(403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.header('Vary', 'Accept');
      const kind = negotiateReport(request.headers.accept);
      if (kind !== 'json')
        return sendFile(app, request, reply as FastifyReply, request.params.report_id, kind);
      return getReport(app.ctx, workspacePrincipal(request), request.params.report_id);
    },
  );

  for (const kind of ['pdf', 'csv'] as const) {
    app.get(
      `/v1/reports/:report_id/${kind}`,
      {
        config: READ,
        schema: {
          operationId: kind === 'pdf' ? 'getReportPdf' : 'getReportCsv',
          tags: TAGS,
          summary: `A generated report as ${kind.toUpperCase()} (extension)`,
          description: '409 Report Not Ready until the report is ready.',
          params: ReportId,
          response: {
            200: {
              description: `The report as ${kind.toUpperCase()}`,
              content: kind === 'pdf' ? { [PDF]: pdfContent } : { 'text/csv': csvContent },
            },
            ...errorResponses(403, 404, 409),
          },
        },
      },
      async (request, reply) => sendFile(app, request, reply as FastifyReply, request.params.report_id, kind),
    );
  }
}
