// Sandbox: a few completed audits (with score_log rows) for the named workspaces, after the TACSI
// archive is published so their industry benchmark reads it. Idempotent: a workspace that already has
// a completed audit is skipped.
import { completeAudit } from './complete.ts';
import { estimatedSeconds } from './policy.ts';
import type { AppContext } from '../context.ts';
import type { SandboxExtension } from '../domain-module.ts';
import { newId } from '../infra/ids.ts';
import { stopwatch } from '../infra/wall-clock.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import type { SandboxManifest } from '../sandbox/manifest.ts';

/** Audits of each named workspace: four weeks apart, the last one an hour ago. */
export const SANDBOX_AUDIT_AGES_DAYS = [56, 28, 0] as const;

/** Completed audits (with score_log rows) for a workspace that has none; returns their ids. */
export async function seedAudits(ctx: AppContext, workspaceId: string): Promise<string[]> {
  const done = await ctx.db
    .selectFrom('audits')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'completed')
    .executeTakeFirst();
  if (done) return [];
  const platforms = await connectedPlatforms(ctx.db, workspaceId);
  if (!platforms.length) return [];
  const now = ctx.now().getTime();
  const ids: string[] = [];
  for (const age of SANDBOX_AUDIT_AGES_DAYS) {
    const completedAt = new Date(now - age * 86_400_000 - 3_600_000);
    const seconds = estimatedSeconds(platforms.length, 90);
    const id = newId('aud');
    await ctx.db
      .insertInto('audits')
      .values({
        id,
        workspace_id: workspaceId,
        platforms,
        lookback_days: 90,
        estimated_completion: completedAt,
        created_at: new Date(completedAt.getTime() - seconds * 1000),
      })
      .execute();
    // Sandbox audits emit no events: nobody is subscribed yet, and deliveries would only fail.
    const outcome = await completeAudit(ctx, id, { now: completedAt, emitEvents: false }).catch(
      async (error) => {
        await ctx.db.deleteFrom('audits').where('id', '=', id).execute();
        throw error;
      },
    );
    if (outcome === 'completed') ids.push(id);
  }
  return ids;
}

function auditedWorkspaces(manifest: SandboxManifest): string[] {
  const w = manifest.workspaces;
  return [
    ...new Set([
      w.pro,
      w.agency,
      ...w.agencyClients,
      w.creatorClient,
      w.otherAgency,
      ...w.otherAgencyClients,
    ]),
  ];
}

export const auditsSandbox: SandboxExtension = {
  name: 'audits',
  after: ['tacsi'],
  async run(ctx, manifest, log) {
    const watch = stopwatch();
    const audits: Record<string, string[]> = {};
    for (const id of auditedWorkspaces(manifest)) {
      const created = await seedAudits(ctx, id);
      if (created.length) audits[id] = created;
    }
    const latest = await ctx.db
      .selectFrom('audits')
      .select('id')
      .where('workspace_id', '=', manifest.workspaces.pro)
      .where('status', '=', 'completed')
      .orderBy('completed_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    manifest.extras.sampleAuditId = latest?.id ?? null;
    log(
      `audits: ${Object.values(audits).flat().length} completed audits for ${Object.keys(audits).length} workspaces in ` +
        watch.elapsed(),
    );
  },
};
