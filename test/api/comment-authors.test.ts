// An engagement pod on Instagram is seen the way the Graph API shows it: every comment comes with its
// author (`from`) and time, and a pod's members comment on every post within minutes. The simulated
// account gets a pod (POST /_sim/pod), a sync counts per post day the comments by repeat commenters and
// the early ones, and the score's authenticity flags name the pod with that evidence (docs/scoring.md,
// "Formula v3: authenticity"). No commenter id is stored.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { closeSimulatedService, liveConnection, startSimulatedService } from '../helpers/simulator-oauth.ts';
import type { TestService } from '../helpers/service.ts';

let sim: Simulator;
let t: TestService;
const NOW = new Date();
const TODAY = utcDay(NOW);

beforeAll(async () => {
  ({ sim, t } = await startSimulatedService(NOW));
});
afterAll(() => closeSimulatedService({ sim, t }));

it('a pod commenting on every post within minutes is counted per post day and flagged with that evidence', async () => {
  const { key, workspace, sync } = await liveConnection(t, 'instagram', 'podbrand', NOW);
  await sync(0);
  const rows = (from: string) =>
    t.db
      .selectFrom('metric_snapshots')
      .select(['day', 'posts', 'comments', 'comments_attributed', 'comments_repeat', 'comments_early'])
      .where('workspace_id', '=', workspace.id)
      .where('platform', '=', 'instagram')
      .where('day', '>=', from)
      .orderBy('day')
      .execute();
  const flags = async () => {
    const score = await t.request({ method: 'GET', url: '/v1/score', key });
    expect(score.statusCode, score.body).toBe(200);
    return (score.json().authenticity_flags ?? []) as Array<{ code: string; detail: string }>;
  };
  // The honest audience: comments read with their authors, from many different accounts.
  const honest = (await rows(addDays(TODAY, -60))).filter((r) => Number(r.posts) > 0);
  expect(honest.length).toBeGreaterThan(10);
  expect(honest.every((r) => Number(r.comments_attributed) > 0)).toBe(true);
  expect(honest.every((r) => Number(r.comments_repeat) === 0)).toBe(true);
  expect((await flags()).map((f) => f.code)).not.toContain('engagement_pod');

  const staged = await fetch(`${sim.url}/_sim/pod`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      platform: 'instagram',
      handle: 'podbrand',
      from: addDays(TODAY, 1),
      days: 21,
      members: 40,
    }),
  });
  expect(staged.status, await staged.clone().text()).toBe(200);
  sim.advanceDays(21);
  await sync(21);

  const podDays = (await rows(addDays(TODAY, 1))).filter((r) => Number(r.posts) > 0);
  expect(podDays.length).toBeGreaterThan(3);
  // Every member's comment is early; from each member's third post on, they are repeat commenters.
  for (const r of podDays) expect(Number(r.comments_early)).toBeGreaterThanOrEqual(40 * Number(r.posts));
  expect(podDays.slice(3).every((r) => Number(r.comments_repeat) >= 40)).toBe(true);
  const pod = (await flags()).find((f) => f.code === 'engagement_pod');
  expect(pod?.detail).toMatch(
    /while \d+% of its comments came from accounts commenting on at least 3 of its posts/,
  );

  // The simulator refuses what it cannot do, in words.
  const refused = await fetch(`${sim.url}/_sim/pod`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'tiktok', handle: 'podbrand' }),
  });
  expect(refused.status).toBe(422);
});
