import { sql, type Kysely, type Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { newId } from '../infra/ids.ts';
import { isUniqueViolation } from '../infra/db/errors.ts';
import { auditsUsed, lockWorkspace } from '../workspaces/queries.ts';
import { currentAuditPeriod } from '../workspaces/billing.ts';
import { auditRunJob } from './jobs.ts';
import {
  auditWorkers,
  DEFAULT_LOOKBACK_DAYS,
  ESTIMATE_SAMPLE,
  ESTIMATE_WINDOW_HOURS,
  measuredEstimateSeconds,
} from './policy.ts';
import { checkAuditWebhookUrl } from './webhook-url.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { generateSecret } from '../webhooks/secrets.ts';
import { PLAN_LABELS, PLAN_LIMITS, type Platform, PLATFORMS } from '../core/catalog.ts';
import { resolveWorkspace, workspaceNotFound } from '../workspaces/tenancy.ts';

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
  /** With a webhook_url: the secret that signs its delivery, returned only here. */
  webhook_secret?: string;
}

/**
 * Seconds until a new audit should be done, from what the service measured lately: the median
 * duration of the last ESTIMATE_SAMPLE audits completed within the window, and the audits still
 * processing ahead of this one. Operational timing only (docs/adr/0064-estimated-completion.md): no tenant's
 * data.
 */
async function estimateSeconds(
  ctx: AppContext,
  db: Kysely<DB>,
  now: Date,
  platformCount: number,
  lookbackDays: number,
): Promise<number> {
  const since = new Date(now.getTime() - ESTIMATE_WINDOW_HOURS * 3_600_000);
  const { rows } = await sql<{ median: number | string | null; ahead: number | string }>`
    SELECT
      (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM (
         SELECT extract(epoch FROM completed_at - created_at) AS seconds FROM audits
         WHERE status = 'completed' AND completed_at > ${since}
         ORDER BY completed_at DESC LIMIT ${ESTIMATE_SAMPLE}) recent) AS median,
      (SELECT count(*) FROM audits WHERE status = 'processing') AS ahead`.execute(db);
  const median = rows[0]?.median;
  return measuredEstimateSeconds({
    medianSeconds: median === null || median === undefined ? null : Math.max(0, Number(median)),
    ahead: Number(rows[0]?.ahead ?? 0),
    concurrency: auditWorkers(ctx.database),
    platformCount,
    lookbackDays,
  });
}

function auditInProgress(workspaceId: string): DomainError<'audit_in_progress'> {
  return new DomainError(
    'audit_in_progress',
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
      throw invalidParameter('platforms', `lists ${[...new Set(duplicates)].join(', ')} more than once`);
    }
  }
  const ws = await resolveWorkspace(ctx.db, principal, input.workspace_id);
  const webhookUrl =
    input.webhook_url === undefined ? null : await checkAuditWebhookUrl(ctx, input.webhook_url);
  const lookbackDays = input.lookback_days ?? DEFAULT_LOOKBACK_DAYS;
  // The one-off delivery is signed with a secret of its own, handed to the caller who chose the
  // URL: never with another principal's registered secrets (docs/adr/0030-one-off-audit-webhook-url.md).
  const webhookSecret = webhookUrl === null ? null : generateSecret();
  const id = newId('aud');
  const sealedSecret =
    webhookSecret === null ? null : ctx.keyRing.seal(webhookSecret, sealedAt('audits.webhook_secret', id));

  const now = ctx.now();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      // Serialises every start on this workspace: the quota count below cannot be raced.
      if (!(await lockWorkspace(trx, ws.id))) throw workspaceNotFound(ws.id);

      const connected = await connectedPlatforms(trx, ws.id);
      if (connected.length === 0) {
        throw new DomainError(
          'no_platforms_connected',
          `Workspace ${ws.id} has no connected platform; connect one before running an audit.`,
        );
      }
      let platforms = connected;
      if (input.platforms) {
        const missing = input.platforms.filter((p) => !connected.includes(p));
        if (missing.length) {
          const detail = `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not connected to workspace ${ws.id} (connected: ${connected.join(', ')}).`;
          throw new DomainError('requested_platforms_not_connected', detail, { parameter: 'platforms' });
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
          throw new DomainError(
            'audit_limit_reached',
            `The ${PLAN_LABELS[ws.plan]} plan includes ${limit} audit${limit === 1 ? '' : 's'} per calendar month (UTC) and ` +
              `${used} ${used === 1 ? 'has' : 'have'} been used; the quota resets at ${end.toISOString()}.`,
            { used, limit, resetsAt: end.toISOString() },
          );
        }
      }

      const estimated = new Date(
        now.getTime() + (await estimateSeconds(ctx, trx, now, platforms.length, lookbackDays)) * 1000,
      );
      await trx
        .insertInto('audits')
        .values({
          id,
          workspace_id: ws.id,
          created_by: principal.workspaceId,
          platforms,
          lookback_days: lookbackDays,
          webhook_url: webhookUrl,
          webhook_secret: sealedSecret?.ciphertext ?? null,
          webhook_secret_key_id: sealedSecret?.keyId ?? null,
          estimated_completion: estimated,
          created_at: now,
        })
        .execute();
      await auditRunJob.enqueue(ctx, { auditId: id }, { trx, priority: await fairPriority(trx, ws) });
      return {
        audit_id: id,
        status: 'processing' as const,
        estimated_completion: estimated.toISOString(),
        workspace_id: ws.id,
        platforms_included: platforms,
        lookback_days: lookbackDays,
        ...(webhookSecret === null ? {} : { webhook_secret: webhookSecret }),
      };
    });
  } catch (error) {
    // The partial unique index is the last word on "one running audit per workspace".
    if (isUniqueViolation(error, 'audits_one_processing_uq')) throw auditInProgress(ws.id);
    throw error;
  }
}

/**
 * Fair queueing between tenants (an agency with its clients, or a workspace alone): an audit's job
 * priority is minus the number of its tenant's audits already waiting or running, and workers take
 * the highest priority first, then the oldest. So the queue serves every tenant's first audit, then
 * every tenant's second, and so on: an agency that starts 40 audits delays another tenant's audit by
 * about one audit, not 40 (docs/audits.md, "Queue fairness"). The count is read in the start's
 * transaction; two starts racing for one tenant may share a priority, which only ties their order.
 */
async function fairPriority(
  trx: Transaction<DB>,
  ws: { id: string; parent_id: string | null },
): Promise<number> {
  const tenant = ws.parent_id ?? ws.id;
  const { n } = await trx
    .selectFrom('audits')
    .innerJoin('workspaces', 'workspaces.id', 'audits.workspace_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('audits.status', '=', 'processing')
    .where((eb) => eb.or([eb('workspaces.id', '=', tenant), eb('workspaces.parent_id', '=', tenant)]))
    .executeTakeFirstOrThrow();
  // The audit just inserted is one of them.
  return -Math.min(Math.max(0, Number(n) - 1), MAX_QUEUE_DEPTH);
}

/** Priorities stop here: a tenant with more audits waiting keeps its order among them. */
const MAX_QUEUE_DEPTH = 100_000;
