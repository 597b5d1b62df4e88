import type { AppContext } from '../context.ts';
import { purgeIdempotencyKeys } from '../infra/http/idempotency.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { purgeOAuthStates } from '../platforms/oauth-retention.ts';
import { purgeDeletedWebhooks } from '../webhooks/retention.ts';
import { purgeAuditLog } from '../audit-log/queries.ts';

export interface PurgeCounts {
  oauthStates: number;
  idempotencyKeys: number;
  deletedWebhooks: number;
  auditLog: number;
}

/**
 * Deletes what has outlived its retention (docs/operations.md, "Retention"): each owner's rule on
 * its own table. Idempotent: a rerun deletes nothing more.
 */
export async function purgeExpired(ctx: Pick<AppContext, 'db' | 'now' | 'config'>): Promise<PurgeCounts> {
  const now = ctx.now();
  return {
    oauthStates: await purgeOAuthStates(ctx.db, now),
    idempotencyKeys: await purgeIdempotencyKeys(ctx.db, now),
    deletedWebhooks: await purgeDeletedWebhooks(ctx.db, now),
    auditLog: await purgeAuditLog(ctx.db, now, ctx.config.auditLogRetentionDays),
  };
}

/** Once a day at 03:17 UTC (off the hour, away from the TACSI publications). */
export const retentionPurgeJob = defineJob<object>({
  queue: 'retention.purge',
  policy: 'stately',
  retry: { retryLimit: 5, retryDelay: 300, retryBackoff: true },
  expireInSeconds: 900,
  schedule: '17 3 * * *',
  worker: { batchSize: 1 },
  handler: (ctx) => purgeExpired(ctx),
});
