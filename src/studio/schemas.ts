// TypeBox schemas of the content-scoring endpoint, with its OpenAPI example.
import { Type, type Static } from 'typebox';
import { PLATFORMS } from '../core/catalog.ts';
import { CONTENT_TYPES, FORMATS, QUALITY_CHECKS, STUDIO_MODES } from './types.ts';

const SignedString = Type.String({
  pattern: '^[+-]\\d+(\\.\\d+)?$',
  description: 'signed number, e.g. "+2.1"',
});

export const StudioScoreBody = Type.Object(
  {
    content_type: Type.Enum([...CONTENT_TYPES], { description: 'text, image or video' }),
    content: Type.String({
      minLength: 1,
      description: 'the text itself, or an http(s) URL of the image or video',
    }),
    platform: Type.Enum([...PLATFORMS]),
    format: Type.Optional(Type.Enum([...FORMATS], { default: 'post' })),
    mode: Type.Optional(
      Type.Enum([...STUDIO_MODES], {
        description:
          'Extension. `announcement` for a recall, apology, outage or safety notice: tone, call-to-action, question and emoji checks are left out. Omitted: detected from the wording of a text (media: standard).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        content_type: 'text',
        content:
          'Our spring menu lands Monday: oat-milk lavender latte, two new pastries. Which one first? #coffee',
        platform: 'instagram',
        format: 'post',
      },
    ],
  },
);

const PillarOutlook = Type.Object({
  direction: Type.Enum(['up', 'flat', 'down']),
  low: SignedString,
  high: SignedString,
});

export const ContentScore = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    pillar_predictions: Type.Object(
      {
        presence: SignedString,
        reach: SignedString,
        impact: SignedString,
        sentiment: SignedString,
        momentum: SignedString,
      },
      {
        description:
          "The format checks' expected effect on each pillar, in pillar points. Not calibrated against engagement outcomes: read it with pillar_outlook's range and direction, not as a forecast.",
      },
    ),
    feedback: Type.Array(
      Type.Object({
        priority: Type.Integer({ minimum: 1 }),
        suggestion: Type.String(),
        expected_lift: SignedString,
      }),
    ),
    platform: Type.String(),
    format: Type.String(),
    basis: Type.Literal('format_checklist', {
      description:
        'Extension. The score is the weighted share of format checks passed (length, hashtags, framing, resolution...). It does not judge whether the content is good, true or on-brand, and it is not calibrated against engagement outcomes.',
    }),
    mode: Type.Enum([...STUDIO_MODES], { description: 'Extension. The mode the content was judged in.' }),
    mode_source: Type.Enum(['request', 'detected', 'default'], {
      description:
        'Extension. `request` when the body gave `mode`, `detected` from the wording of a text, `default` (standard) for media.',
    }),
    language: Type.Union([Type.String(), Type.Null()], {
      description:
        'Extension. ISO 639-1 language detected in a text (`und` without words); null for media. English-only checks are not judged for other languages.',
    }),
    blockers: Type.Array(Type.String(), {
      description:
        'Extension. Checks the platform would refuse or truncate the content on (over the character limit, too many hashtags on instagram, an unaccepted file type or size, a video over the limit). While any remains the score is at most 40.',
    }),
    flags: Type.Array(
      Type.Object({
        check: Type.Enum([...QUALITY_CHECKS]),
        detail: Type.String(),
        suggestion: Type.String(),
      }),
      {
        description:
          'Extension. Quality problems of a text that the format checks cannot see, each with a one-sentence detail and its fix: `junk` (no words, placeholder Latin, gibberish: score at most 10), `claims` (unsubstantiated health or finance claims: at most 30), `spam` ("DM for promo", "follow for follow", giveaway bait, link spam: at most 35), `hashtag_stuffing` (at most 40), `all_caps` and `repetition` (at most 50). The lowest cap of the flags applies. Empty for media.',
      },
    ),
    not_judged: Type.Array(
      Type.Object({
        check: Type.String(),
        reason: Type.Enum(['language', 'announcement', 'not_analysed']),
      }),
      {
        description:
          'Extension. Checks left out of the score, and why: `language` (English-only checks on another language), `announcement` (tone, call to action, questions and emoji of a notice), `not_analysed` (what an image or video shows: only its format is read). The score is the share of the other checks.',
      },
    ),
    pillar_outlook: Type.Object(
      {
        presence: PillarOutlook,
        reach: PillarOutlook,
        impact: PillarOutlook,
        sentiment: PillarOutlook,
        momentum: PillarOutlook,
      },
      {
        description:
          'Extension. pillar_predictions are not calibrated against outcomes: each as a range of +/-2.5 pillar points, and a direction only when the whole range is on one side of zero.',
      },
    ),
  },
  { $id: 'ContentScore' },
);

export const CONTENT_SCORE_EXAMPLE: Static<typeof ContentScore> = {
  score: 72,
  pillar_predictions: {
    presence: '+0.4',
    reach: '+1.8',
    impact: '+2.1',
    sentiment: '+0.9',
    momentum: '+0.3',
  },
  feedback: [
    {
      priority: 1,
      suggestion: 'Add a clear call to action in the first line.',
      expected_lift: '+3.0',
    },
    { priority: 2, suggestion: 'Add 3-5 more specific hashtags.', expected_lift: '+1.5' },
  ],
  platform: 'instagram',
  format: 'post',
  basis: 'format_checklist',
  mode: 'standard',
  mode_source: 'detected',
  language: 'en',
  blockers: [],
  flags: [],
  not_judged: [],
  pillar_outlook: {
    presence: { direction: 'flat', low: '-2.1', high: '+2.9' },
    reach: { direction: 'flat', low: '-0.7', high: '+4.3' },
    impact: { direction: 'flat', low: '-0.4', high: '+4.6' },
    sentiment: { direction: 'flat', low: '-1.6', high: '+3.4' },
    momentum: { direction: 'flat', low: '-2.2', high: '+2.8' },
  },
};
