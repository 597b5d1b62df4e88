// TypeBox schemas of the annotation endpoints, with their OpenAPI examples.
import { Type, type Static } from 'typebox';
import { DateOnly, Timestamp } from '../infra/http/schemas.ts';

export const ANNOTATION_CATEGORIES = ['note', 'launch', 'campaign', 'crisis', 'press', 'other'] as const;
export const MAX_TEXT = 500;
export const MAX_AUTHOR = 200;

export const Annotation = Type.Object(
  {
    id: Type.String(),
    workspace_id: Type.String(),
    day: DateOnly,
    text: Type.String(),
    category: Type.Enum([...ANNOTATION_CATEGORIES]),
    author: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'Annotation' },
);

export const CreateAnnotationBody = Type.Object(
  {
    day: DateOnly,
    text: Type.String({ minLength: 1, maxLength: MAX_TEXT }),
    category: Type.Optional(Type.Enum([...ANNOTATION_CATEGORIES], { default: 'note' })),
    author: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUTHOR })),
  },
  {
    additionalProperties: false,
    examples: [{ day: '2026-03-02', text: 'Spring collection launch', category: 'launch', author: 'Dana' }],
  },
);

export const AnnotationListQuery = Type.Object(
  {
    from: Type.Optional(DateOnly),
    to: Type.Optional(DateOnly),
  },
  { additionalProperties: false },
);

export const AnnotationList = Type.Object({ annotations: Type.Array(Annotation) });
export const AnnotationId = Type.Object({ annotation_id: Type.String() });
export const DeletedAnnotation = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const ANNOTATION_EXAMPLE = {
  id: 'ann_01HZY0000000000000000000',
  workspace_id: 'ws_demo',
  day: '2026-03-02',
  text: 'Spring collection launch',
  category: 'launch' as const,
  author: 'Dana',
  created_at: '2026-03-02T09:00:00.000Z',
} as const;

/** What a timeline entry records: a note someone wrote, or an event the service knows of. */
export const TIMELINE_KINDS = [
  'note',
  'audit_completed',
  'campaign_phase_started',
  'platform_connected',
  'platform_disconnected',
  'crisis_started',
  'crisis_ended',
] as const;

export const TimelineAnnotation = Type.Object(
  {
    day: DateOnly,
    text: Type.String(),
    category: Type.Enum([...ANNOTATION_CATEGORIES], {
      description:
        "the note's category; crisis for crisis events, campaign for campaign phases, other for the service's other events",
    }),
    author: Type.Union([Type.String(), Type.Null()], { description: 'null on service events' }),
    source: Type.Enum(['user', 'service'], {
      description: 'user: a note of POST /v1/annotations; service: an event the service recorded',
    }),
    kind: Type.Enum([...TIMELINE_KINDS]),
    ref: Type.Union([Type.String(), Type.Null()], {
      description:
        'the annotation, audit, campaign or alert episode id it stands for; null for platform events',
    }),
  },
  { $id: 'TimelineAnnotation' },
);
export type TimelineEntry = Static<typeof TimelineAnnotation>;

export const TIMELINE_EXAMPLE = [
  {
    day: '2026-11-10',
    text: 'instagram connected (@acme)',
    category: 'other' as const,
    author: null,
    source: 'service' as const,
    kind: 'platform_connected' as const,
    ref: null,
  },
  {
    day: '2026-11-14',
    text: 'Spring collection launch',
    category: 'launch' as const,
    author: 'Dana',
    source: 'user' as const,
    kind: 'note' as const,
    ref: 'ann_01HZY0000000000000000000',
  },
  {
    day: '2026-11-22',
    text: 'Audit completed: score 68.2 (B)',
    category: 'other' as const,
    author: null,
    source: 'service' as const,
    kind: 'audit_completed' as const,
    ref: 'aud_01JD8ZJ3K4L5M6N7P8Q9R0S1T2',
  },
];
