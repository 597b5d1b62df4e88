import type { AppContext } from '../context.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { PLAN_LABELS, PLAN_LIMITS } from '../infra/auth/plans.ts';
import { resolveWorkspace } from '../infra/auth/tenancy.ts';
import { PLATFORMS, type Platform } from '../infra/db/types.ts';
import { ProblemError, problems } from '../infra/http/problem.ts';
import { newId } from '../infra/ids.ts';
import { auditsUsed } from '../workspaces/queries.ts';
import { currentAuditPeriod } from '../workspaces/billing.ts';
import {
  AUDIT_JOB_EXPIRE_SECONDS,
  AUDIT_QUEUE,
  AUDIT_RETRY_DELAY_SECONDS,
  AUDIT_RETRY_LIMIT,
  DEFAULT_LOOKBACK_DAYS,
  estimatedSeconds,
} from './policy.ts';
import { checkAuditWebhookUrl } from './webhook-url.ts';

export interface StartAuditInput {
  workspace_id?: string;
  platforms?: Platform[];
  lookback_days?: number;
  webhook_url?: string;
}

export interface AuditStartResult {
  audit_id: string;
  status: 'processing';
  estimated_completion: string;
  workspace_id: string;
  platforms_included: Platform[];
  lookback_days: number;
}

export interface AuditJobData {
  auditId: string;
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === constraint);
}

function auditInProgress(workspaceId: string): ProblemError {
  return problems.conflict(
    'Audit In Progress',
    `An audit is already running for workspace ${workspaceId}; read it back or wait until it completes.`,
  );
}

/**
 * Starts a Brand Audit. Checks, in order (docs/audits.md): the body schema and platform names
 * (400), the workspace (404), webhook_url (400 Invalid URL), then under a lock on the
 * workspace row: no platform connected (422), requested platforms not connected (400), an audit
 * already processing (409), the monthly quota (402). The audit row and its job commit together.
 */
export async function startAudit(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  input: StartAuditInput,
): Promise<AuditStartResult> {
  if (input.platforms) {
    const duplicates = input.platforms.filter((p, i) => input.platforms!.indexOf(p) !== i);
    if (duplicates.length) {
      throw problems.invalidParameter(
        'platforms',
        `lists ${[...new Set(duplicates)].join(', ')} more than once`,
      );
    }
  }
  const ws = await resolveWorkspace(ctx.db, principal, input.workspace_id);
  const webhookUrl =
    input.webhook_url === undefined ? null : await checkAuditWebhookUrl(ctx, input.webhook_url);
  const lookbackDays = input.lookback_days ?? DEFAULT_LOOKBACK_DAYS;

  const now = ctx.now();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      // Serialises every start on this workspace: the quota count below cannot be raced.
      await trx
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', ws.id)
        .forUpdate()
        .executeTakeFirstOrThrow();

      const connected = await connectedPlatforms(trx, ws.id);
      if (connected.length === 0) {
        throw problems.unprocessable(
          'No Platforms Connected',
          `Workspace ${ws.id} has no connected platform; connect one before running an audit.`,
        );
      }
      let platforms = connected;
      if (input.platforms) {
        const missing = input.platforms.filter((p) => !connected.includes(p));
        if (missing.length) {
          const detail = `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not connected to workspace ${ws.id} (connected: ${connected.join(', ')}).`;
          throw new ProblemError(400, 'Platform Not Connected', detail, {
            errors: [{ parameter: 'platforms', message: detail }],
          });
        }
        platforms = PLATFORMS.filter((p) => input.platforms!.includes(p));
      }

      const running = await trx
        .selectFrom('audits')
        .select('id')
        .where('workspace_id', '=', ws.id)
        .where('status', '=', 'processing')
        .executeTakeFirst();
      if (running) throw auditInProgress(ws.id);

      const limit = PLAN_LIMITS[ws.plan].auditsPerMonth;
      if (limit !== null) {
        const used = await auditsUsed(trx, ws.id, now);
        if (used >= limit) {
          const { end } = currentAuditPeriod(now);
          throw new ProblemError(
            402,
            'Audit Limit Reached',
            `The ${PLAN_LABELS[ws.plan]} plan includes ${limit} audit${limit === 1 ? '' : 's'} per calendar month (UTC) and ` +
              `${used} ${used === 1 ? 'has' : 'have'} been used; the quota resets at ${end.toISOString()}.`,
            { extensions: { audits_used: used, audits_limit: limit, resets_at: end.toISOString() } },
          );
        }
      }

      const id = newId('aud');
      const estimated = new Date(now.getTime() + estimatedSeconds(platforms.length, lookbackDays) * 1000);
      await trx
        .insertInto('audits')
        .values({
          id,
          workspace_id: ws.id,
          platforms,
          lookback_days: lookbackDays,
          webhook_url: webhookUrl,
          estimated_completion: estimated,
          created_at: now,
        })
        .execute();
      await ctx.jobs.sendInTransaction(trx, AUDIT_QUEUE, { auditId: id } satisfies AuditJobData, {
        retryLimit: AUDIT_RETRY_LIMIT,
        retryDelay: AUDIT_RETRY_DELAY_SECONDS,
        retryBackoff: true,
        expireInSeconds: AUDIT_JOB_EXPIRE_SECONDS,
      });
      return {
        audit_id: id,
        status: 'processing' as const,
        estimated_completion: estimated.toISOString(),
        workspace_id: ws.id,
        platforms_included: platforms,
        lookback_days: lookbackDays,
      };
    });
  } catch (error) {
    // The partial unique index is the last word on "one running audit per workspace".
    if (isUniqueViolation(error, 'audits_one_processing_uq')) throw auditInProgress(ws.id);
    throw error;
  }
}
