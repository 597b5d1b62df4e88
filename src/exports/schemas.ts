// TypeBox schemas of the export endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { Grade, PlatformName, Timestamp, withDefault } from '../infra/http/schemas.ts';
import { ACCOUNT_TIERS } from '../scoring/engine/index.ts';
import { ACCOUNT_TYPES, ORG_TYPES } from '../core/catalog.ts';

const SCORE_NOTE = 'null when the client has no completed Brand Audit yet';

const Scope = Type.Object(
  { workspaceId: Type.String(), workspaceName: Type.String() },
  { $id: 'ExportScope' },
);

const ScoreFields = {
  coreScore: Type.Union([Type.Number(), Type.Null()], {
    description: `latest stored Brand Credit Score; ${SCORE_NOTE}`,
  }),
  imprsScore: Type.Union([Type.Number(), Type.Null()], { description: `equal to coreScore; ${SCORE_NOTE}` }),
  grade: Type.Union([Grade, Type.Null()], {
    description: `composite grade of coreScore; ${SCORE_NOTE}`,
  }),
  scoredAt: Type.Union([Timestamp, Type.Null()], { description: `when that audit completed; ${SCORE_NOTE}` }),
};

export const ClientRow = Type.Object(
  {
    workspaceId: Type.String(),
    name: Type.String(),
    type: Type.Enum(ACCOUNT_TYPES, { description: 'account type: brand, creator or agency' }),
    orgType: Type.Enum(ORG_TYPES, { description: 'organisation type of the workspace' }),
    isWhiteLabeled: Type.Boolean(),
    ...ScoreFields,
  },
  { $id: 'ExportClient' },
);

export const CreatorRow = Type.Object(
  {
    workspaceId: Type.String(),
    name: Type.String(),
    accountType: Type.Literal('creator'),
    ...ScoreFields,
  },
  { $id: 'ExportCreator' },
);

export const ScoreLogRow = Type.Object(
  {
    workspaceId: Type.String(),
    workspaceName: Type.String(),
    platform: PlatformName,
    tier: Type.Enum(ACCOUNT_TIERS, {
      description: 'account tier of the platform account by its followers (docs/scoring.md)',
    }),
    followerCount: Type.Integer(),
    overallScore: Type.Number(),
    grade: Grade,
    part1Score: Type.Number(),
    part2Score: Type.Number(),
    formulaVersion: Type.String(),
    recordedAt: Timestamp,
  },
  { $id: 'ExportScoreLog' },
);

export const ClientExport = Type.Object(
  { scope: Scope, count: Type.Integer(), clients: Type.Array(ClientRow) },
  { $id: 'ClientExport' },
);
export const CreatorExport = Type.Object(
  { scope: Scope, count: Type.Integer(), creators: Type.Array(CreatorRow) },
  { $id: 'CreatorExport' },
);
export const ScoreLogExport = Type.Object(
  {
    scope: Type.Object({
      workspaceId: Type.String(),
      workspaceName: Type.String(),
      clientCount: Type.Integer(),
    }),
    count: Type.Integer(),
    scores: Type.Array(ScoreLogRow),
  },
  { $id: 'ScoreLogExport' },
);

export const NoParameters = Type.Object({}, { additionalProperties: false });

const SCORE_EXAMPLE = {
  coreScore: 68.2,
  imprsScore: 68.2,
  grade: 'strong' as const,
  scoredAt: '2026-11-20T09:13:02.000Z',
};
const AGENCY_SCOPE = { workspaceId: 'ws_01JD8Z4A1B2C3D4E5F6G7H8J9K', workspaceName: 'Northwind Agency' };

export const ScoreExportQuery = Type.Object(
  {
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 1000, default: 500, format: 'int32' })),
    since: Type.Optional(
      Type.String({
        maxLength: 64,
        examples: ['2026-11-01'],
        description: 'ISO 8601 date or date-time (no offset: UTC); only rows recorded at or after it',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CLIENT_EXPORT_EXAMPLE: Static<typeof ClientExport> = {
  scope: AGENCY_SCOPE,
  count: 1,
  clients: [
    {
      workspaceId: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      name: 'Bluebird Coffee',
      type: 'brand',
      orgType: 'company',
      isWhiteLabeled: false,
      ...SCORE_EXAMPLE,
    },
  ],
};

export const CREATOR_EXPORT_EXAMPLE: Static<typeof CreatorExport> = {
  scope: AGENCY_SCOPE,
  count: 1,
  creators: [
    {
      workspaceId: 'ws_01JD8Z7R2S3T4V5W6X7Y8Z9A0B',
      name: 'Mara Lopes',
      accountType: 'creator',
      ...SCORE_EXAMPLE,
    },
  ],
};

export const SCORE_LOG_EXPORT_EXAMPLE: Static<typeof ScoreLogExport> = {
  scope: { ...AGENCY_SCOPE, clientCount: 12 },
  count: 1,
  scores: [
    {
      workspaceId: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
      workspaceName: 'Bluebird Coffee',
      platform: 'instagram',
      tier: 'micro',
      followerCount: 48210,
      overallScore: 70.4,
      grade: 'strong',
      part1Score: 72.1,
      part2Score: 68.7,
      formulaVersion: 'v1',
      recordedAt: '2026-11-20T09:13:02.000Z',
    },
  ],
};
