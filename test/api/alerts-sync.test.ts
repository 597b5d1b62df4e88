// A sync that rescores a workspace queues its alert evaluation in the sync's transaction, with the
// score it recorded and the platform that moved it.
import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evaluateAlerts, type EvaluateJob } from '../../src/alerts/evaluate.ts';
import { runSyncJob, type SyncJob } from '../../src/platforms/sync-worker.ts';
import { oauthConnection } from '../helpers/oauth-connection.ts';
import { platformStandIn } from '../helpers/platform-standin.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

let t: TestService;
let standIn: Awaited<ReturnType<typeof platformStandIn>>;
const NOW = new Date('2025-03-04T06:00:00Z');

beforeAll(async () => {
  standIn = await platformStandIn();
  t = await startTestService({}, standIn.env);
  t.setNow(NOW);
});
afterAll(async () => {
  await t?.close();
  await standIn?.close();
});

it('a sync that rescores queues alerts.evaluate with its score and platform; none without alerts', async () => {
  const quiet = await workspaceWithKey(t.db, { plan: 'agency' });
  const w = await workspaceWithKey(t.db, { plan: 'agency' });
  const res = await t.request({
    method: 'POST',
    url: '/v1/alerts',
    key: w.key,
    payload: { name: 'Under 100', condition: 'score_below', threshold: 100, webhook: true },
  });
  expect(res.statusCode).toBe(201);
  for (const ws of [quiet, w]) {
    const id = await oauthConnection(t, NOW, ws.workspace.id, 'instagram');
    const job: SyncJob = { connectionId: id, round: NOW.toISOString(), attempt: 1 };
    expect(await runSyncJob(t.ctx, job)).toBe('synced');
  }
  const jobs = (await t.ctx.jobs.boss.findJobs<EvaluateJob>('alerts.evaluate')).map((j) => j.data);
  expect(jobs.map((j) => j.workspaceId)).toEqual([w.workspace.id]);
  const score = await t.db
    .selectFrom('daily_scores')
    .select('score')
    .where('workspace_id', '=', w.workspace.id)
    .where('formula_version', '=', CURRENT_FORMULA)
    .where('day', '=', '2025-03-04')
    .executeTakeFirstOrThrow();
  expect(jobs[0]!.change).toMatchObject({ score: score.score, previous_score: null, platform: 'instagram' });

  const outcome = await evaluateAlerts(t.ctx, jobs[0]!);
  expect(outcome.triggered).toHaveLength(1);
  const [event] = await t.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('workspace_id', '=', w.workspace.id)
    .where('type', '=', 'alert.triggered')
    .execute();
  expect(event!.data).toMatchObject({
    condition: 'score_below',
    drivers: { threshold: 100, platform: 'instagram' },
  });
});
