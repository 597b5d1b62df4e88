import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { workspacePrincipal } from '../infra/auth/auth-plugin.ts';
import { idempotent } from '../infra/http/idempotency.ts';
import { errorResponses, json } from '../infra/http/schemas.ts';
import { cancelCampaign, createCampaign, listCampaigns } from './service.ts';
import {
  Campaign,
  CAMPAIGN_EXAMPLE,
  CAMPAIGN_LIST_EXAMPLE,
  CampaignIdParam,
  CampaignList,
  CampaignListQuery,
  CANCELLED_CAMPAIGN_EXAMPLE,
  CreateBody,
} from './schemas.ts';
import { resolveWorkspace } from '../workspaces/tenancy.ts';

export async function campaignRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/campaigns',
    {
      config: {
        auth: { audience: 'workspace', plan: 'agency', action: 'campaign.manage' },
        validationProblems: { '/start_date': 'invalid_dates' },
        idempotencyKey: true,
      },
      schema: {
        operationId: 'createCampaign',
        tags: ['campaigns'],
        summary: 'Create a Narrative Arc campaign (as a draft)',
        description:
          'Creates a draft campaign that starts at 00:00 UTC on start_date and moves through its phases on its own. ' +
          'Supports the Idempotency-Key header.',
        body: CreateBody,
        response: {
          200: json(Campaign, 'The campaign created', CAMPAIGN_EXAMPLE),
          ...errorResponses(403, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(app.ctx.db, principal, request.body.workspace_id);
      const body = request.body;
      return idempotent(app.ctx, request, reply, async () => ({
        status: 200,
        body: await createCampaign(app.ctx, {
          workspaceId: ws.id,
          createdBy: principal.workspaceId,
          name: body.name,
          objective: body.objective,
          startDate: body.start_date,
          durationWeeks: body.duration_weeks,
          phases: body.phases,
        }),
      }));
    },
  );

  app.get(
    '/v1/campaigns',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'score.read' } },
      schema: {
        operationId: 'listCampaigns',
        tags: ['campaigns'],
        summary: 'List campaigns of a workspace, newest first',
        description:
          'Campaigns with their current phase and score movement, newest first; page with limit and offset (total counts them all).',
        querystring: CampaignListQuery,
        response: {
          200: json(CampaignList, 'One page of campaigns', CAMPAIGN_LIST_EXAMPLE),
          ...errorResponses(403, 404),
        },
      },
    },
    async (request) => {
      const principal = workspacePrincipal(request);
      const ws = await resolveWorkspace(app.ctx.db, principal, request.query.workspace_id);
      const { status, limit, offset } = request.query;
      return listCampaigns(app.ctx, principal, ws.id, { status, limit, offset });
    },
  );

  app.post(
    '/v1/campaigns/:campaign_id/cancel',
    {
      config: { auth: { audience: 'workspace', plan: 'agency', action: 'campaign.manage' } },
      schema: {
        operationId: 'cancelCampaign',
        tags: ['campaigns'],
        summary: 'Cancel a draft or active campaign (extension)',
        description:
          'The campaign stops where it is: no further phase changes or events. Cancelling a cancelled campaign answers it unchanged; a completed one answers 409 Campaign Completed.',
        params: CampaignIdParam,
        response: {
          200: json(Campaign, 'The campaign, cancelled', CANCELLED_CAMPAIGN_EXAMPLE),
          ...errorResponses(403, 404, 409),
        },
      },
    },
    async (request) =>
      cancelCampaign(app.ctx, workspacePrincipal(request).workspaceId, request.params.campaign_id),
  );
}
