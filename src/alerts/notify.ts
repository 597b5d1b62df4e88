// Sending an alert episode's notifications: one `alerts.notify` job per channel and phase, queued
// with the episode (evaluate.ts). Email goes through ctx.mail; Slack is a JSON POST of {text, blocks}
// to an incoming-webhook URL through the webhooks' outbound guard (deliverOnce: https, public
// addresses only, checked again at send time).
import type { AppContext } from '../context.ts';
import { defineJob } from '../infra/jobs/define.ts';
import { deliverOnce } from '../webhooks/deliver-once.ts';
import { webhookSettings } from '../webhooks/settings.ts';
import { workspaceName } from '../workspaces/queries.ts';
import * as q from './queries.ts';
import type { Drivers } from './rules.ts';

/** Job data of `alerts.notify`: one row of alert_notifications. */
export interface NotifyJob {
  episodeId: string;
  phase: 'triggered' | 'resolved';
  channel: 'email' | 'slack';
}

type Loaded = NonNullable<Awaited<ReturnType<typeof q.loadNotification>>>;

/** The message of a notification: a subject line and the lines of its body. */
export function alertMessage(
  n: Loaded,
  phase: NotifyJob['phase'],
  workspace: string,
): { subject: string; lines: string[] } {
  const resolution = n.resolution as { summary: string; drivers: Drivers } | null;
  const summary = phase === 'resolved' && resolution ? resolution.summary : n.summary;
  const drivers = (phase === 'resolved' && resolution ? resolution.drivers : n.drivers) as Drivers;
  const subject = `${phase === 'triggered' ? 'Alert' : 'Resolved'}: ${n.name} (${workspace})`;
  const lines = [summary];
  const moves = drivers.pillars ?? [];
  if (moves.length) {
    lines.push(
      `Drivers: ${moves.map((m) => `${m.pillar} ${m.change >= 0 ? '+' : ''}${m.change.toFixed(1)}`).join(', ')}.`,
    );
  }
  if (drivers.audit_id) lines.push(`Moved by audit ${drivers.audit_id}.`);
  if (drivers.platform) lines.push(`Moved by a sync of ${drivers.platform}.`);
  lines.push(
    phase === 'triggered'
      ? `Triggered at ${n.triggered_at.toISOString()}.`
      : `Triggered at ${n.triggered_at.toISOString()}, resolved at ${n.resolved_at?.toISOString()}.`,
  );
  lines.push(`Alert ${n.rule_id}, episode ${n.episode_id}: GET /v1/alerts/${n.rule_id}/history`);
  return { subject, lines };
}

/** Slack's incoming-webhook body: `text` for notifications and clients without blocks, and the blocks. */
export function slackBody(message: { subject: string; lines: string[] }): string {
  return JSON.stringify({
    text: `${message.subject}: ${message.lines[0]}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: message.subject.slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: message.lines.slice(0, -1).join('\n') } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: message.lines.at(-1)! }] },
    ],
  });
}

/**
 * Sends one notification unless it was sent already (a re-run job). A failure is recorded and
 * thrown, so pg-boss retries it with backoff; the last attempt's failure marks it failed.
 */
export async function sendNotification(
  ctx: AppContext,
  key: NotifyJob,
  lastAttempt: boolean,
): Promise<'sent' | 'skipped'> {
  const n = await q.loadNotification(ctx.db, key);
  if (!n || n.status !== 'pending') return 'skipped';
  const message = alertMessage(n, key.phase, (await workspaceName(ctx.db, n.workspace_id)) ?? n.workspace_id);
  let error: string | null = null;
  if (key.channel === 'email') {
    try {
      await ctx.mail.send({ to: n.email, subject: message.subject, text: message.lines.join('\n\n') });
    } catch (e) {
      error = `email not sent: ${(e as Error).message}`.slice(0, 500);
    }
  } else if (n.slack_url) {
    const settings = webhookSettings(ctx);
    const outcome = await deliverOnce(
      {
        url: n.slack_url,
        msgId: `${n.episode_id}.${key.phase}`,
        payload: slackBody(message),
        secrets: [],
        timestamp: ctx.now(),
      },
      {
        allowLoopback: ctx.config.allowLoopbackFetch,
        resolve: settings.resolve,
        ca: settings.ca,
        timeoutMs: settings.attemptTimeoutMs,
      },
    );
    if (!outcome.ok) error = outcome.error ?? 'not delivered';
  } else {
    error = 'the alert has no Slack URL any more';
  }
  const at = ctx.now();
  if (error === null) {
    await q.recordNotification(ctx.db, key, { status: 'sent', error: null, at });
    return 'sent';
  }
  await q.recordNotification(ctx.db, key, { status: lastAttempt ? 'failed' : 'pending', error, at });
  if (lastAttempt) return 'skipped';
  throw new Error(error);
}

/** One notification of an alert episode; retried with backoff for about an hour. */
export const alertNotifyJob = defineJob<NotifyJob>({
  queue: 'alerts.notify',
  retry: { retryLimit: 8, retryDelay: 15, retryBackoff: true, retryDelayMax: 900 },
  expireInSeconds: 60,
  worker: { pollingIntervalSeconds: 1, localConcurrency: 2 },
  handler: (ctx, job) => sendNotification(ctx, job.data, job.retryCount >= job.retryLimit),
});
