import type { FastifyInstance, FastifyRequest } from 'fastify';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ProblemError } from '../infra/http/problem.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { formatProblem, scoreContent, StudioError } from './index.ts';
import { CONTENT_SCORE_EXAMPLE, ContentScore, StudioScoreBody } from './schemas.ts';

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
        auth: { audience: 'workspace', plan: 'agency', action: 'studio.use' },
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
        body: StudioScoreBody,
        response: {
          200: json(
            ContentScore,
            'The predicted score, pillar effects and ranked suggestions',
            CONTENT_SCORE_EXAMPLE,
          ),
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
