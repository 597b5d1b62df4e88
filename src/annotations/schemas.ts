// TypeBox schemas of the annotation endpoints, with their OpenAPI examples.
import { Type } from 'typebox';
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
