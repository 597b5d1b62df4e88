// TypeBox schemas of the report endpoints (docs/reports.md), with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { DateOnly, PillarName, Timestamp, withDefault } from '../infra/http/schemas.ts';
import { CADENCES } from './periods.ts';

/** Most recipients of one schedule. */
export const MAX_RECIPIENTS = 20;
/** Most live schedules per workspace. */
export const MAX_SCHEDULES = 50;
/** Largest logo, in bytes (decoded). */
export const MAX_LOGO_BYTES = 256 * 1024;
/** Logo dimensions accepted, in pixels. */
export const LOGO_MIN_PX = 16;
export const LOGO_MAX_PX = 2048;

const Hex = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', maxLength: 7, examples: ['#0b5fff'] });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Brand = Type.Object(
  {
    workspace_id: Type.String(),
    name: Type.String(),
    primary_color: Type.String(),
    accent_color: Type.String(),
    logo: Nullable(
      Type.Object({
        content_type: Type.Enum(['image/png', 'image/jpeg']),
        width: Type.Integer(),
        height: Type.Integer(),
        bytes: Type.Integer(),
      }),
    ),
    updated_at: Timestamp,
  },
  { $id: 'ReportBrand' },
);

export const BRAND_EXAMPLE: Static<typeof Brand> = {
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  name: 'Northwind Agency',
  primary_color: '#0b5fff',
  accent_color: '#ff8a00',
  logo: { content_type: 'image/png', width: 320, height: 96, bytes: 8412 },
  updated_at: '2026-11-20T09:00:00.000Z',
};

export const BrandBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    primary_color: Hex,
    accent_color: Hex,
    logo_base64: Type.Optional(
      Nullable(
        Type.String({
          maxLength: Math.ceil(MAX_LOGO_BYTES / 3) * 4 + 4,
          description: `PNG or JPEG, base64, at most ${MAX_LOGO_BYTES / 1024} KB and ${LOGO_MIN_PX}-${LOGO_MAX_PX} px a side; null removes the logo, absent keeps it`,
        }),
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Northwind Agency', primary_color: '#0b5fff', accent_color: '#ff8a00' }],
  },
);

export const Schedule = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scope: Type.Enum(['workspace', 'all_clients']),
    workspace_id: Type.String({
      description: 'the workspace reported on (the agency itself for all_clients)',
    }),
    cadence: Type.Enum([...CADENCES]),
    recipients: Type.Array(Type.String()),
    created_at: Timestamp,
  },
  { $id: 'ReportSchedule' },
);

export const SCHEDULE_EXAMPLE: Static<typeof Schedule> = {
  id: 'rps_01JD8ZG1A2B3C4D5E6F7G8H9J0',
  name: 'Weekly brand report',
  scope: 'workspace',
  workspace_id: 'ws_01JD8Z7A1B2C3D4E5F6G7H8J9K',
  cadence: 'weekly',
  recipients: ['cmo@client.example'],
  created_at: '2026-11-20T09:00:00.000Z',
};

export const CreateScheduleBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scope: withDefault(Type.Enum(['workspace', 'all_clients'], { default: 'workspace' })),
    workspace_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "scope workspace: the workspace reported on (default the key owner's)",
      }),
    ),
    cadence: Type.Enum([...CADENCES]),
    recipients: Type.Array(Email, { minItems: 1, maxItems: MAX_RECIPIENTS }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Weekly brand report',
        workspace_id: 'ws_01JD8Z7A1B2C3D4E5F6G7H8J9K',
        cadence: 'weekly',
        recipients: ['cmo@client.example'],
      },
    ],
  },
);

export const UpdateScheduleBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    recipients: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: MAX_RECIPIENTS })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ recipients: ['cmo@client.example', 'ceo@client.example'] }],
  },
);

export const ScheduleList = Type.Object({ schedules: Type.Array(Schedule) });
export const ScheduleId = Type.Object({
  schedule_id: Type.String({ minLength: 1, maxLength: 64, examples: [SCHEDULE_EXAMPLE.id] }),
});
export const DeletedSchedule = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const GenerateBody = Type.Object(
  {
    period: Type.Optional(
      Type.String({
        format: 'date',
        maxLength: 10,
        description: 'any day of the period to report on (default: the latest period that has ended)',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ period: '2026-11-16' }] },
);

export const ReportSummary = Type.Object(
  {
    id: Type.String(),
    schedule_id: Type.String(),
    period_start: DateOnly,
    period_end: DateOnly,
    status: Type.Enum(['pending', 'ready', 'failed']),
    failure_reason: Nullable(Type.String()),
    created_at: Timestamp,
    ready_at: Nullable(Timestamp),
    emailed_at: Nullable(Timestamp),
    links: Type.Object({ pdf: Type.String(), csv: Type.String() }),
  },
  { $id: 'ReportSummary' },
);

export const REPORT_SUMMARY_EXAMPLE: Static<typeof ReportSummary> = {
  id: 'rpt_01JD8ZH2K3L4M5N6P7Q8R9S0T1',
  schedule_id: SCHEDULE_EXAMPLE.id,
  period_start: '2026-11-16',
  period_end: '2026-11-22',
  status: 'ready',
  failure_reason: null,
  created_at: '2026-11-23T01:00:00.000Z',
  ready_at: '2026-11-23T01:00:04.000Z',
  emailed_at: '2026-11-23T01:00:05.000Z',
  links: {
    pdf: '/v1/reports/rpt_01JD8ZH2K3L4M5N6P7Q8R9S0T1/pdf',
    csv: '/v1/reports/rpt_01JD8ZH2K3L4M5N6P7Q8R9S0T1/csv',
  },
};

const PillarChange = Type.Object({
  pillar: PillarName,
  start: Nullable(Type.Number()),
  end: Nullable(Type.Number()),
  change: Nullable(Type.String()),
});

const Section = Type.Object({
  workspace_id: Type.String(),
  name: Type.String(),
  score: Type.Object({
    start: Nullable(Type.Number()),
    end: Nullable(Type.Number()),
    change: Nullable(Type.String()),
    formula_version: Type.String(),
  }),
  pillars: Type.Array(PillarChange),
  history: Type.Array(Type.Object({ date: DateOnly, score: Type.Number() })),
  annotations: Type.Array(Type.Object({ day: DateOnly, category: Type.String(), text: Type.String() })),
  audits: Type.Array(
    Type.Object({
      audit_id: Type.String(),
      completed_at: Timestamp,
      score: Type.Number(),
      grade: Nullable(Type.String()),
      recommendations: Type.Array(
        Type.Object({
          priority: Type.Integer(),
          pillar: Type.String(),
          action: Type.String(),
          expected_impact: Type.String(),
        }),
      ),
    }),
  ),
  connections: Type.Array(
    Type.Object({
      platform: Type.String(),
      handle: Type.String(),
      status: Type.String(),
      health: Type.String(),
      reason: Nullable(Type.String()),
      last_sync: Nullable(Timestamp),
    }),
  ),
  campaigns: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Type.String(),
      start_date: DateOnly,
      current_phase: Nullable(Type.String()),
      phases: Type.Array(
        Type.Object({ name: Type.String(), weeks: Type.Array(Type.Integer()), status: Type.String() }),
      ),
    }),
  ),
});

export const ReportContent = Type.Object({
  report_id: Type.String(),
  title: Type.String(),
  brand: Type.Object({
    name: Type.String(),
    primary_color: Type.String(),
    accent_color: Type.String(),
    white_label: Type.Boolean(),
  }),
  scope: Type.Enum(['workspace', 'all_clients']),
  cadence: Type.Enum([...CADENCES]),
  period: Type.Object({ start: DateOnly, end: DateOnly }),
  generated_at: Timestamp,
  drivers_note: Type.String(),
  workspaces: Type.Array(Section),
});

export const Report = Type.Object(
  { ...ReportSummary.properties, content: Nullable(ReportContent) },
  { $id: 'Report' },
);

export const REPORT_EXAMPLE: Static<typeof Report> = {
  ...REPORT_SUMMARY_EXAMPLE,
  content: {
    report_id: REPORT_SUMMARY_EXAMPLE.id,
    title: 'Weekly brand report',
    brand: { name: 'Northwind Agency', primary_color: '#0b5fff', accent_color: '#ff8a00', white_label: true },
    scope: 'workspace',
    cadence: 'weekly',
    period: { start: '2026-11-16', end: '2026-11-22' },
    generated_at: '2026-11-23T01:00:04.000Z',
    drivers_note:
      'Drivers of change: each pillar from the first to the last stored day of the period; the largest moves explain the score change.',
    workspaces: [
      {
        workspace_id: 'ws_01JD8Z7A1B2C3D4E5F6G7H8J9K',
        name: 'Bluebird Coffee',
        score: { start: 66.9, end: 71.4, change: '+4.5', formula_version: 'v2' },
        pillars: [
          { pillar: 'presence', start: 70, end: 71, change: '+1.0' },
          { pillar: 'reach', start: 60.2, end: 66.8, change: '+6.6' },
          { pillar: 'impact', start: 64, end: 69.5, change: '+5.5' },
          { pillar: 'sentiment', start: 72, end: 73, change: '+1.0' },
          { pillar: 'momentum', start: 68.3, end: 76.7, change: '+8.4' },
        ],
        history: [
          { date: '2026-11-16', score: 66.9 },
          { date: '2026-11-22', score: 71.4 },
        ],
        annotations: [{ day: '2026-11-18', category: 'launch', text: 'Winter menu launch' }],
        audits: [],
        connections: [
          {
            platform: 'instagram',
            handle: '@bluebird',
            status: 'connected',
            health: 'healthy',
            reason: null,
            last_sync: '2026-11-22T04:00:00.000Z',
          },
        ],
        campaigns: [
          {
            name: 'Winter launch',
            status: 'active',
            start_date: '2026-11-02',
            current_phase: 'Build',
            phases: [
              { name: 'Foundation', weeks: [1, 2, 3], status: 'completed' },
              { name: 'Build', weeks: [4, 5, 6], status: 'active' },
            ],
          },
        ],
      },
    ],
  },
};

export const ReportList = Type.Object({
  reports: Type.Array(ReportSummary),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const ReportListQuery = Type.Object(
  {
    schedule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20, format: 'int32' })),
    offset: withDefault(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, format: 'int32' })),
  },
  { additionalProperties: false },
);

export const ReportId = Type.Object({
  report_id: Type.String({ minLength: 1, maxLength: 64, examples: [REPORT_SUMMARY_EXAMPLE.id] }),
});

/** One line of a report's CSV: a section (score, pillar, annotation, ...) of one workspace. */
export const ReportCsvRow = Type.Object({
  workspace_id: Type.String(),
  workspace: Type.String(),
  section: Type.String(),
  item: Type.String(),
  start: Nullable(Type.Number()),
  end: Nullable(Type.Number()),
  change: Nullable(Type.Number({ description: 'end minus start, one decimal' })),
  detail: Type.String(),
});
