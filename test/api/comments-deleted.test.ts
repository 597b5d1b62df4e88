// Comments deleted from a post are seen the way a real platform shows them: the post's lifetime comment
// count (Instagram's comments_count) reads lower on the next sync. The simulated account's post loses
// comments (POST /_sim/delete-comments), a sync books the fall on the post's day as comments_deleted,
// and the score's authenticity flags say so (docs/scoring.md, "Formula v3: authenticity").
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

it('a fall in a post comment count between syncs is booked as deleted comments and flagged', async () => {
  const { key, workspace, sync } = await liveConnection(t, 'instagram', 'tidybrand', NOW);
  await sync(0);
  const rows = () =>
    t.db
      .selectFrom('metric_snapshots')
      .select(['day', 'comments', 'comments_deleted'])
      .where('workspace_id', '=', workspace.id)
      .where('platform', '=', 'instagram')
      .where('day', '>=', addDays(TODAY, -10))
      .orderBy('day')
      .execute();
  const before = await rows();
  expect(before.every((r) => Number(r.comments_deleted) === 0)).toBe(true);
  // A recent post day with comments, which the next sync reads again.
  const target = before.find((r) => Number(r.comments) >= 4);
  expect(target, JSON.stringify(before)).toBeDefined();
  const day = String(target!.day);

  const answer = await fetch(`${sim.url}/_sim/delete-comments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'instagram', handle: 'tidybrand', day, count: 3 }),
  });
  expect(answer.status, await answer.clone().text()).toBe(200);
  sim.advanceDays(1);
  await sync(1);

  const after = (await rows()).find((r) => String(r.day) === day)!;
  expect(Number(after.comments_deleted)).toBe(3);
  // The day's comments fall by the deleted ones: comments and deleted together stay what the day had.
  expect(Number(after.comments)).toBe(Number(target!.comments) - 3);
  const score = await t.request({ method: 'GET', url: '/v1/score', key });
  expect(score.statusCode, score.body).toBe(200);
  const flags = (score.json().authenticity_flags ?? []) as Array<{ code: string }>;
  expect(flags.map((f) => f.code)).toContain('comments_deleted');

  // Synced again with nothing more deleted: the same three, not six.
  sim.advanceDays(1);
  await sync(2);
  expect(Number((await rows()).find((r) => String(r.day) === day)!.comments_deleted)).toBe(3);

  // The simulator refuses what it cannot do, in words.
  const refused = await fetch(`${sim.url}/_sim/delete-comments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'tiktok', handle: 'tidybrand', day, count: 1 }),
  });
  expect(refused.status).toBe(422);
});
