import type { FastifyInstance, FastifyRequest } from 'fastify';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ProblemError } from '../infra/http/problem.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { CONTENT_TYPES, FORMATS, formatProblem, scoreContent, StudioError } from './index.ts';
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
        },
      },
      schema: {
        operationId: 'scoreContent',
        tags: ['studio'],
        summary: 'Score draft content for a platform, with ranked suggestions',
        description:
          'Text is analysed directly (at most 10,000 characters); images and videos are fetched from their URL (public addresses only, at most 100 MB). The same input always gives the same result. See docs/studio.md.',
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
          }),
          ...errorResponses(403, 413, 422, 429),
        },
      },
    },
    async (request) => {
      const { content_type, content, platform } = request.body;
      const format = request.body.format ?? 'post';
      const mismatch = formatProblem(platform, format);
      if (mismatch) throw new StudioError('invalid_format', mismatch, { parameter: 'format' });
      if (content_type !== 'text') await spendMediaBudget(request);
      // A StudioError thrown here is answered through the edge table (infra/http/domain-problems.ts).
      return await scoreContent(
        { content_type, content, platform, format },
        { allowLoopback: app.ctx.config.allowLoopbackFetch },
      );
    },
  );
}
