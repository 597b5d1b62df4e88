// Alert evaluation (docs/alerts.md "Evaluation"): the recorder of a score (an audit, a sync) or of a
// connection that needs the brand tells AppContext.workspaceChanged in its own transaction, which
// enqueues `alerts.evaluate` there (the alerts module's onWorkspaceChange); the job checks
// each rule of the workspace and opens or resolves its episode, with the episode's notifications and
// events in the same transaction.
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { addDays, utcDay } from '../core/days.ts';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { connectionsNeedingBrand } from '../platforms/queries.ts';
import type { WorkspaceChange } from '../core/workspace-change.ts';
import { dailyScoreWindow } from '../scoring/daily-scores.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { alertNotifyJob, type NotifyJob } from './notify.ts';
import * as q from './queries.ts';
import { evaluateCondition, lookBackDays, type AlertParams, type AlertState, type Drivers } from './rules.ts';

/** Job data of `alerts.evaluate`: the change recorded. */
export type EvaluateJob = WorkspaceChange;

/**
 * Schedules the evaluation of the workspace's alert rules in the caller's transaction, so it happens
 * (at least once) exactly when the score or connection state it is about commits. Nothing is queued
 * for a workspace without rules.
 */
export async function enqueueAlertEvaluation(
  ctx: AppContext,
  trx: Transaction<DB>,
  input: EvaluateJob,
): Promise<void> {
  if (!(await q.hasRules(trx, input.workspaceId))) return;
  await alertEvaluateJob.enqueue(ctx, input, { trx });
}

export interface EvaluationOutcome {
  triggered: string[];
  resolved: string[];
}

/**
 * Evaluates every rule of the workspace against the recorded change and the stored state. Each rule
 * is decided in its own transaction under a lock on its row, and an episode opens only where none is
 * open (a partial unique index backs this): two evaluations of one change, on two instances or a
 * re-run job, open and notify one episode. A rule whose last episode resolved less than its cooldown
 * ago does not fire again yet.
 */
export async function evaluateAlerts(ctx: AppContext, job: EvaluateJob): Promise<EvaluationOutcome> {
  const outcome: EvaluationOutcome = { triggered: [], resolved: [] };
  // A disabled rule is kept, with its open episode if it has one, but not evaluated.
  const rules = (await q.listRules(ctx.db, job.workspaceId)).filter((r) => r.enabled);
  if (rules.length === 0) return outcome;
  const now = ctx.now();
  const today = utcDay(job.change ? new Date(job.change.changed_at) : now);
  const days = Math.max(0, ...rules.map((r) => lookBackDays(r.condition, r.params as AlertParams)));
  const state: AlertState = {
    today,
    change: job.change ?? null,
    daily: await dailyScoreWindow(ctx.db, job.workspaceId, addDays(today, -days), today),
    connections: await connectionsNeedingBrand(ctx.db, job.workspaceId),
  };

  for (const listed of rules) {
    await ctx.db.transaction().execute(async (trx) => {
      const rule = await q.lockRule(trx, job.workspaceId, listed.id);
      if (!rule?.enabled) return; // deleted or disabled since
      const open = await q.openEpisode(trx, rule.id);
      const verdict = evaluateCondition(
        rule.condition,
        rule.params as AlertParams,
        state,
        open ? { drivers: open.drivers as Drivers, triggeredDay: utcDay(open.triggered_at) } : null,
      );
      if (!verdict) return;
      if (verdict.firing && !open) {
        const lastResolved = await q.lastResolvedAt(trx, rule.id);
        if (lastResolved && now.getTime() - lastResolved.getTime() < rule.cooldown_minutes * 60_000) return;
        const episode = await q.insertEpisode(trx, {
          id: newId('ale'),
          ruleId: rule.id,
          workspaceId: rule.workspace_id,
          summary: verdict.summary,
          drivers: verdict.drivers,
          at: now,
        });
        if (!episode) return;
        await announce(ctx, trx, rule, verdict, { id: episode.id, triggeredAt: now });
        outcome.triggered.push(episode.id);
      } else if (!verdict.firing && open) {
        const episode = await q.resolveEpisode(
          trx,
          open.id,
          { summary: verdict.summary, drivers: verdict.drivers },
          now,
        );
        if (!episode) return;
        await announce(ctx, trx, rule, verdict, {
          id: episode.id,
          triggeredAt: episode.triggered_at,
          resolvedAt: now,
        });
        outcome.resolved.push(episode.id);
      }
    });
  }
  return outcome;
}

/** The episode's email and Slack notifications, recorded and queued in the episode's transaction. */
async function notify(
  ctx: AppContext,
  trx: Transaction<DB>,
  rule: q.RuleRow,
  episodeId: string,
  phase: NotifyJob['phase'],
): Promise<void> {
  const jobs: NotifyJob[] = [
    ...(rule.email.length > 0 ? [{ episodeId, phase, channel: 'email' as const }] : []),
    ...(rule.slack_url ? [{ episodeId, phase, channel: 'slack' as const }] : []),
  ];
  await q.insertNotifications(trx, jobs);
  if (jobs.length) await alertNotifyJob.enqueueMany(ctx, jobs, { trx });
}

/**
 * An episode that fired or resolved: its email and Slack notifications, and `alert.triggered` or
 * `alert.resolved` (with `resolvedAt`) when the rule delivers to webhooks, in the episode's transaction.
 */
async function announce(
  ctx: AppContext,
  trx: Transaction<DB>,
  rule: q.RuleRow,
  verdict: { summary: string; drivers: Drivers },
  episode: { id: string; triggeredAt: Date; resolvedAt?: Date },
): Promise<void> {
  const resolved = episode.resolvedAt !== undefined;
  await notify(ctx, trx, rule, episode.id, resolved ? 'resolved' : 'triggered');
  if (!rule.webhook) return;
  const data = {
    alert_id: rule.id,
    episode_id: episode.id,
    workspace_id: rule.workspace_id,
    name: rule.name,
    condition: rule.condition,
    summary: verdict.summary,
    drivers: verdict.drivers,
    triggered_at: episode.triggeredAt.toISOString(),
  };
  await (episode.resolvedAt
    ? emitEvent(ctx, trx, {
        workspaceId: rule.workspace_id,
        type: 'alert.resolved',
        data: { ...data, resolved_at: episode.resolvedAt.toISOString() },
      })
    : emitEvent(ctx, trx, { workspaceId: rule.workspace_id, type: 'alert.triggered', data }));
}

/** Evaluates a workspace's alerts after a score or connection change (enqueueAlertEvaluation). */
export const alertEvaluateJob = defineJob<EvaluateJob>({
  queue: 'alerts.evaluate',
  retry: { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  expireInSeconds: 120,
  worker: { pollingIntervalSeconds: 1 },
  handler: (ctx, job) => evaluateAlerts(ctx, job.data),
});
