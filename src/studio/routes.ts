import type { FastifyInstance, FastifyRequest } from 'fastify';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ProblemError } from '../infra/http/problem.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import {
  CONTENT_TYPES,
  FORMATS,
  formatProblem,
  QUALITY_CHECKS,
  STUDIO_MODES,
  scoreContent,
  StudioError,
} from './index.ts';
import { PLATFORMS } from '../core/catalog.ts';

const SignedString = Type.String({
  pattern: '^[+-]\\d+(\\.\\d+)?$',
  description: 'signed number, e.g. "+2.1"',
});

const Body = Type.Object(
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
    pillar_predictions: Type.Object({
      presence: SignedString,
      reach: SignedString,
      impact: SignedString,
      sentiment: SignedString,
      momentum: SignedString,
    }),
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

const HOUR_MS = 3_600_000;

export async function studioRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /**
   * Every media URL makes the service download (a bounded part of) someone else's file: a budget of
   * STUDIO_MEDIA_FETCHES_PER_HOUR fetches per workspace and hour, counted where the per-key rate
   * limit counts (in process, or Redis shared by every instance), keeps the service from being
   * used to pull bandwidth. Like the rate limit, an outage of the store does not block requests.
   */
  async function spendMediaBudget(request: FastifyRequest): Promise<void> {
    const limit = app.ctx.config.studioMediaFetchesPerHour;
    if (limit === 0) return;
    const workspaceId = workspacePrincipal(request).workspaceId;
    let hit;
    try {
      hit = await app.ctx.rateLimits.hit(`studio-media:${workspaceId}`, HOUR_MS);
    } catch (error) {
      request.log.warn({ err: error }, 'rate limit store unavailable; media fetch allowed');
      return;
    }
    if (hit.count > limit) {
      const seconds = Math.max(1, Math.ceil(hit.resetMs / 1000));
      throw new ProblemError(
        429,
        'Media Budget Exceeded',
        `This workspace has fetched ${limit} media URLs this hour, its budget; text scoring is not limited. Retry in ${seconds} s.`,
        { headers: { 'Retry-After': String(seconds) } },
      );
    }
  }

  app.post(
    '/v1/studio/score',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', scope: 'write' },
        validationProblems: {
          '/content_type': 'invalid_content_type',
          '/platform': 'invalid_platform',
          '/format': 'invalid_format',
          '/mode': 'invalid_mode',
        },
      },
      schema: {
        operationId: 'scoreContent',
        tags: ['studio'],
        summary: 'Score draft content for a platform, with ranked suggestions',
        description:
          'A format checklist, not a prediction of performance: the score is the weighted share of platform format checks the draft passes (length, hook, hashtags, call to action, framing, resolution, duration...), not calibrated against engagement outcomes, and it does not judge whether the content is good. Following a suggestion raises the score by its expected_lift. Text is analysed directly (at most 10,000 characters); images and videos are fetched from their URL (public addresses only, at most 100 MB). The same input always gives the same result. See docs/studio.md.',
        body: Body,
        response: {
          200: json(ContentScore, 'The predicted score, pillar effects and ranked suggestions', {
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
          }),
          ...errorResponses(403, 413, 422, 429),
        },
      },
    },
    async (request) => {
      const { content_type, content, platform, mode } = request.body;
      const format = request.body.format ?? 'post';
      const mismatch = formatProblem(platform, format);
      if (mismatch) throw new StudioError('invalid_format', mismatch, { parameter: 'format' });
      if (content_type !== 'text') await spendMediaBudget(request);
      // A StudioError thrown here is answered through the edge table (infra/http/domain-problems.ts).
      return await scoreContent(
        { content_type, content, platform, format, ...(mode ? { mode } : {}) },
        { allowLoopback: app.ctx.config.allowLoopbackFetch },
      );
    },
  );
}
