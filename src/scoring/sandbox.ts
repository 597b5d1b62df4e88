// Sandbox: two years of stored daily scores for every workspace with metric history, then a few
// completed audits (with score_log rows) for the named workspaces, so score, history, benchmarks,
// exports and TACSI have data. Idempotent: workspaces that already have daily scores or a
// completed audit are skipped.
import { completeAudit } from '../audits/complete.ts';
import { estimatedSeconds } from '../audits/policy.ts';
import type { AppContext } from '../context.ts';
import { newId } from '../infra/ids.ts';
import type { SandboxExtension } from '../domain-module.ts';
import type { SandboxManifest } from '../sandbox/manifest.ts';
import { snapshotsByWorkspace, workspacesWithoutDailyScores, writeNewDailyScores } from './bulk-io.ts';
import { computeDailyScores, type DailyScoreRow } from './daily-scores.ts';
import { utcDay } from '../core/days.ts';
import { connectedPlatforms } from '../platforms/queries.ts';
import { stopwatch } from '../infra/wall-clock.ts';

/** Audits of each named workspace: four weeks apart, the last one an hour ago. */
export const SANDBOX_AUDIT_AGES_DAYS = [56, 28, 0] as const;

/** Computes and stores the daily score series of every workspace that has snapshots and no scores. */
export async function backfillDailyScores(ctx: AppContext, log: (line: string) => void): Promise<number> {
  const watch = stopwatch();
  const today = utcDay(ctx.now());
  const todo = await workspacesWithoutDailyScores(ctx);
  let pending: DailyScoreRow[] = [];
  let written = 0;
  // Workspaces are read in slices so memory stays bounded however large the sandbox is.
  for (let i = 0; i < todo.length; i += 100) {
    for await (const [id, snapshots] of snapshotsByWorkspace(ctx, todo.slice(i, i + 100))) {
      const first = snapshots[0]?.day;
      const last = snapshots.at(-1)?.day;
      if (!first || !last) continue;
      pending.push(...computeDailyScores(id, snapshots, first, last < today ? last : today));
    }
    await writeNewDailyScores(ctx, pending);
    written += pending.length;
    pending = [];
  }
  log(`scores: ${written} daily scores for ${todo.length} workspaces in ${watch.elapsed()}`);
  return written;
}

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

export const scoringSandbox: SandboxExtension = {
  name: 'scores',
  async run(ctx, manifest, log) {
    await backfillDailyScores(ctx, log);
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
      `scores: ${Object.values(audits).flat().length} completed audits for ${Object.keys(audits).length} workspaces in ` +
        watch.elapsed(),
    );
  },
};
