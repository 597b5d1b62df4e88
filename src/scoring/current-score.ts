import type { AppContext } from '../context.ts';
import { planAtLeast } from '../infra/auth/plans.ts';
import type { WorkspacePrincipal } from '../infra/auth/principal.ts';
import { resolveWorkspace } from '../infra/auth/tenancy.ts';
import { problems } from '../infra/http/problem.ts';
import { addDays, utcDay } from './days.ts';
import { DEFAULT_LOOKBACK_DAYS, PILLARS, scoreWorkspace, type PillarScores } from './engine/index.ts';
import { connectedPlatforms, loadSnapshots } from './snapshots.ts';

export interface ScoreView {
  score: number;
  pillars?: PillarScores;
  grade: string;
  formula_version: string;
  calculated_at: string;
  workspace_id: string;
  tier: string;
  source: 'audit' | 'realtime';
}

/** Live score from the current snapshots: the default audit window over the connected platforms. */
async function liveScore(ctx: AppContext, workspaceId: string) {
  const now = ctx.now();
  const asOf = utcDay(now);
  const platforms = await connectedPlatforms(ctx.db, workspaceId);
  const snapshots = await loadSnapshots(ctx.db, workspaceId, {
    from: addDays(asOf, -(DEFAULT_LOOKBACK_DAYS - 1)),
    to: asOf,
    ...(platforms.length ? { platforms } : {}),
  });
  const result = scoreWorkspace({ snapshots, platforms, asOf, lookbackDays: DEFAULT_LOOKBACK_DAYS });
  if (result.coverage === 0) return null;
  return {
    score: result.score,
    pillars: result.pillars,
    grade: result.grade,
    version: result.formulaVersion,
    at: now,
  };
}

async function latestAudit(ctx: AppContext, workspaceId: string) {
  const row = await ctx.db
    .selectFrom('audits')
    .select(['score', 'grade', 'pillars', 'formula_version', 'completed_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'completed')
    .orderBy('completed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const stored = row.pillars as Record<string, { value: number }>;
  const pillars = {} as PillarScores;
  for (const k of PILLARS) pillars[k] = stored[k]!.value;
  return {
    score: row.score!,
    pillars,
    grade: row.grade ?? '',
    version: row.formula_version ?? '',
    at: row.completed_at!,
  };
}

/**
 * The workspace's Brand Credit Score: the latest completed audit, or, when the key owner is on
 * Agency or above and the workspace has real-time scoring on, a live calculation from the current
 * snapshots (falling back to the latest audit when there are none). 404 No Score Available otherwise.
 */
export async function currentScore(
  ctx: AppContext,
  principal: WorkspacePrincipal,
  workspaceId: string | undefined,
  includePillars: boolean,
): Promise<ScoreView> {
  const ws = await resolveWorkspace(ctx.db, principal, workspaceId);
  const realtime = ws.realtime_scoring && planAtLeast(principal.plan, 'agency');
  const live = realtime ? await liveScore(ctx, ws.id) : null;
  const found = live ?? (await latestAudit(ctx, ws.id));
  if (!found) {
    throw problems.notFound(
      `Workspace ${ws.id} has no score yet: run an audit with POST /v1/audit/run first.`,
      'No Score Available',
    );
  }
  return {
    score: found.score,
    ...(includePillars ? { pillars: found.pillars } : {}),
    grade: found.grade,
    formula_version: found.version,
    calculated_at: found.at.toISOString(),
    workspace_id: ws.id,
    tier: ws.plan,
    source: live ? 'realtime' : 'audit',
  };
}
