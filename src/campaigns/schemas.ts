// TypeBox schemas of the campaign endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { CAMPAIGN_STATUSES } from '../core/catalog.ts';
import { DateOnly, Timestamp, withDefault, WorkspaceIdInput } from '../infra/http/schemas.ts';
import { DEFAULT_DURATION_WEEKS, MAX_DURATION_WEEKS, MAX_PHASE_NAME, MAX_PHASES } from './phases.ts';

/** Longest campaign name (after trimming) and objective, in characters. */
export const MAX_NAME = 200;
export const MAX_OBJECTIVE = 2000;

const WorkspaceId = WorkspaceIdInput;
const NullableScore = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const CampaignStatus = Type.Enum([...CAMPAIGN_STATUSES], {
  description: 'cancelled is an extension: see POST /v1/campaigns/{campaign_id}/cancel',
});

export const CampaignPhase = Type.Object(
  {
    name: Type.String(),
    weeks: Type.Array(Type.Integer({ minimum: 1 }), {
      description: 'absolute week numbers, 1 = the first week',
    }),
    status: Type.Enum(['upcoming', 'active', 'completed']),
  },
  { $id: 'CampaignPhase' },
);

export const Campaign = Type.Object(
  {
    id: Type.String(),
    workspace_id: Type.String(),
    name: Type.String(),
    objective: Type.Union([Type.String(), Type.Null()]),
    status: CampaignStatus,
    start_date: Type.String({ format: 'date', description: 'the campaign starts at 00:00 UTC on this day' }),
    duration_weeks: Type.Integer(),
    phases: Type.Array(CampaignPhase),
    created_at: Timestamp,
    cancelled_at: Type.Optional(Timestamp),
  },
  { $id: 'Campaign' },
);

export const CampaignListItem = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: CampaignStatus,
    current_phase: Type.String({
      description:
        'lower-case name of the running phase; the first phase for a draft, the last for a completed campaign',
    }),
    phase_progress: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'whole percent of the current phase elapsed',
    }),
    score_at_start: NullableScore(
      'composite score when the campaign started; for a draft, the current score; null when the workspace had none',
    ),
    score_current: NullableScore("the workspace's latest composite score; null when it has none"),
    score_delta: Type.Union([Type.String({ pattern: '^[+-][0-9]+\\.[0-9]$' }), Type.Null()], {
      description:
        'score_current minus score_at_start, signed, one decimal ("+4.2"); null when either is null',
    }),
    start_date: DateOnly,
    created_at: Timestamp,
  },
  { $id: 'CampaignListItem' },
);

export const CampaignList = Type.Object(
  {
    campaigns: Type.Array(CampaignListItem),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  { $id: 'CampaignList' },
);

export const CAMPAIGN_EXAMPLE: Static<typeof Campaign> = {
  id: 'cmp_01JD8ZF1A2B3C4D5E6F7G8H9J0',
  workspace_id: 'ws_01JD8Z6Q9W4T3B2N1M0K5R7H8C',
  name: 'Spring launch',
  objective: 'Grow reach ahead of the new menu',
  status: 'draft',
  start_date: '2030-03-02',
  duration_weeks: 12,
  phases: [
    { name: 'Foundation', weeks: [1, 2, 3], status: 'upcoming' },
    { name: 'Build', weeks: [4, 5, 6], status: 'upcoming' },
    { name: 'Peak', weeks: [7, 8, 9], status: 'upcoming' },
    { name: 'Echo', weeks: [10, 11, 12], status: 'upcoming' },
  ],
  created_at: '2026-11-20T09:30:00.000Z',
};

export const CreateBody = Type.Object(
  {
    workspace_id: Type.Optional(WorkspaceId),
    name: Type.String({ description: `1-${MAX_NAME} characters after trimming` }),
    objective: Type.Optional(Type.String({ maxLength: MAX_OBJECTIVE })),
    start_date: Type.String({
      description: 'ISO 8601 date or date-time; its UTC day must be after today (UTC)',
    }),
    duration_weeks: withDefault(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DURATION_WEEKS,
        default: DEFAULT_DURATION_WEEKS,
      }),
    ),
    phases: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({
              maxLength: 1000,
              description: `1-${MAX_PHASE_NAME} characters after trimming, unique ignoring case`,
            }),
            weeks: Type.Integer({ minimum: 1, maximum: MAX_DURATION_WEEKS }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: MAX_PHASES,
          description:
            'custom phases in order; their weeks must add up to duration_weeks. Default: Foundation, Build, Peak, Echo (docs/campaigns.md)',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Spring launch',
        objective: 'Grow reach ahead of the new menu',
        start_date: '2030-03-02',
        duration_weeks: 12,
      },
    ],
  },
);

export const CampaignListQuery = Type.Object(
  {
    workspace_id: Type.Optional(WorkspaceId),
    status: Type.Optional(
      Type.Enum([...CAMPAIGN_STATUSES], {
        description:
          'default: active, completed and draft; cancelled campaigns are listed only with status=cancelled',
      }),
    ),
    limit: withDefault(Type.Integer({ minimum: 1, maximum: 100, default: 20, format: 'int32' })),
    offset: withDefault(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, format: 'int32' })),
  },
  { additionalProperties: false },
);

export const CampaignIdParam = Type.Object({
  campaign_id: Type.String({
    minLength: 1,
    maxLength: 64,
    examples: ['cmp_01JD8ZF1A2B3C4D5E6F7G8H9J0'],
  }),
});

export const CAMPAIGN_LIST_EXAMPLE: Static<typeof CampaignList> = {
  campaigns: [
    {
      id: 'cmp_01JD8ZF1A2B3C4D5E6F7G8H9J0',
      name: 'Spring launch',
      status: 'active',
      current_phase: 'build',
      phase_progress: 33,
      score_at_start: 64.1,
      score_current: 68.2,
      score_delta: '+4.1',
      start_date: '2026-10-05',
      created_at: '2026-09-28T09:30:00.000Z',
    },
  ],
  total: 1,
  limit: 20,
  offset: 0,
};

export const CANCELLED_CAMPAIGN_EXAMPLE: Static<typeof Campaign> = {
  ...CAMPAIGN_EXAMPLE,
  status: 'cancelled',
  cancelled_at: '2026-11-21T14:02:10.000Z',
};
