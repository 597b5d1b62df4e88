// GET /v1/score/history `annotations`: the workspace's notes and the service's events in the range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPlatform } from '../../src/admin/platforms.ts';
import { addDays, dayStart, utcDay } from '../../src/core/days.ts';
import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { runJob, seedMetrics } from './audits.fixtures.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

const at = (day: string, hours: number) => new Date(dayStart(day).getTime() + hours * 3_600_000);

async function storeScores(workspaceId: string, from: string, days: number) {
  await t.db
    .insertInto('daily_scores')
    .values(
      Array.from({ length: days }, (_, i) => ({
        workspace_id: workspaceId,
        day: addDays(from, i),
        score: 50 + i,
        presence: 50,
        reach: 50,
        impact: 50,
        sentiment: 50,
        momentum: 50,
        formula_version: CURRENT_FORMULA,
      })),
    )
    .execute();
}

const note = async (key: string, payload: object) => {
  const res = await t.request({ method: 'POST', url: '/v1/annotations', key, payload });
  expect(res.statusCode).toBe(201);
  return res.json();
};

describe('GET /v1/score/history: annotations', () => {
  it("marks the day each phase of the workspace's campaigns began; a cancelled campaign's later phases are not", async () => {
    const today = utcDay(new Date());
    const start = addDays(today, 1);
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const campaign = async (name: string) => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/campaigns',
        key,
        payload: { name, start_date: start, duration_weeks: 6 },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { id: string; phases: { name: string; weeks: number[] }[] };
    };
    const kept = await campaign('Spring launch');
    const cancelled = await campaign('Cancelled teaser');
    const other = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    await t.request({
      method: 'POST',
      url: '/v1/campaigns',
      key: other.key,
      payload: { name: "Another tenant's campaign", start_date: start, duration_weeks: 6 },
    });
    // Ten days on, the second campaign is cancelled: its phases that began before stay on the timeline.
    const later = addDays(start, 10);
    t.setNow(at(later, 12));
    try {
      const res = await t.request({ method: 'POST', url: `/v1/campaigns/${cancelled.id}/cancel`, key });
      expect(res.statusCode, res.body).toBeLessThan(300);
      await storeScores(workspace.id, addDays(start, -2), 12);
      t.setNow(at(addDays(start, 60), 12));
      const history = await t.request({
        method: 'GET',
        url: `/v1/score/history?start_date=${addDays(start, -2)}&end_date=${addDays(start, 59)}`,
        key,
      });
      expect(history.statusCode, history.body).toBe(200);
      const byDayAndText = (a: { day: string; text: string }, b: { day: string; text: string }) =>
        a.day.localeCompare(b.day) || a.text.localeCompare(b.text);
      const phases = (
        history.json().annotations as { day: string; text: string; kind: string; ref: string }[]
      )
        .filter((a) => a.kind === 'campaign_phase_started')
        .sort(byDayAndText);
      const phaseDay = (p: { weeks: number[] }) => addDays(start, (p.weeks[0]! - 1) * 7);
      expect(phases).toEqual(
        [
          ...kept.phases.map((p) => ({
            day: phaseDay(p),
            text: `Campaign "Spring launch": ${p.name} phase began`,
            category: 'campaign',
            kind: 'campaign_phase_started',
            ref: kept.id,
            author: null,
            source: 'service',
          })),
          ...cancelled.phases
            .filter((p) => phaseDay(p) < later)
            .map((p) => ({
              day: phaseDay(p),
              text: `Campaign "Cancelled teaser": ${p.name} phase began`,
              category: 'campaign',
              kind: 'campaign_phase_started',
              ref: cancelled.id,
              author: null,
              source: 'service',
            })),
        ].sort(byDayAndText),
      );
      expect(cancelled.phases.some((p) => phaseDay(p) >= later)).toBe(true);
    } finally {
      t.setNow(undefined);
    }
  });

  it("lists the range's notes and the service's events by day, each marked user or service", async () => {
    const today = utcDay(new Date());
    const { key, workspace } = await workspaceWithKey(
      t.db,
      { plan: 'agency' },
      { platforms: [{ platform: 'instagram', handle: '@acme' }] },
    );
    await storeScores(workspace.id, addDays(today, -10), 10);
    await connectPlatform(t.db, {
      workspaceId: workspace.id,
      platform: 'tiktok',
      handle: '@acme_tt',
      connectedAt: at(addDays(today, -5), 9),
    });
    await connectPlatform(t.db, {
      workspaceId: workspace.id,
      platform: 'youtube',
      handle: '@acme_yt',
      connectedAt: at(addDays(today, -400), 9),
    });
    const launch = await note(key, {
      day: addDays(today, -3),
      text: 'Spring launch',
      category: 'launch',
      author: 'Dana',
    });
    await note(key, { day: addDays(today, -20), text: 'Before the range' });
    const other = await workspaceWithKey(t.db, { plan: 'pro' });
    await note(other.key, { day: addDays(today, -3), text: "Another tenant's note" });

    // Two crisis rules fire on one crisis: one entry per day and kind. A score rule's episode is no crisis.
    const rule = async (payload: object) =>
      (
        await t.request({ method: 'POST', url: '/v1/alerts', key, payload: { webhook: true, ...payload } })
      ).json();
    const crisisA = await rule({ name: 'Crisis A', condition: 'crisis' });
    const crisisB = await rule({ name: 'Crisis B', condition: 'crisis' });
    const below = await rule({ name: 'Below 90', condition: 'score_below', threshold: 90 });
    const episode = (id: string, ruleId: string, triggered: Date, resolved: Date | null) => ({
      id,
      rule_id: ruleId,
      workspace_id: workspace.id,
      status: resolved ? ('resolved' as const) : ('firing' as const),
      summary: 'Negative mentions at 3.1x their usual share.',
      drivers: '{}',
      triggered_at: triggered,
      resolved_at: resolved,
    });
    await t.db
      .insertInto('alert_episodes')
      .values([
        episode('ale_crisis_a', crisisA.id, at(addDays(today, -2), 10), at(addDays(today, -1), 9)),
        episode('ale_crisis_b', crisisB.id, at(addDays(today, -2), 11), null),
        episode('ale_below', below.id, at(addDays(today, -2), 12), null),
      ])
      .execute();

    await seedMetrics(t.db, workspace.id, { platforms: ['instagram', 'tiktok'], days: 60 });
    const started = (await t.request({ method: 'POST', url: '/v1/audit/run', key })).json();
    await runJob(t.ctx, started.audit_id);
    const audit = (await t.request({ method: 'GET', url: `/v1/audit/${started.audit_id}`, key })).json();
    expect(audit.status).toBe('completed');
    expect((await t.request({ method: 'DELETE', url: '/v1/platforms/tiktok', key })).statusCode).toBe(200);

    const res = await t.request({
      method: 'GET',
      url: `/v1/score/history?start_date=${addDays(today, -10)}&granularity=daily`,
      key,
    });
    expect(res.statusCode).toBe(200);
    const service = { category: 'other', author: null, source: 'service' };
    expect(res.json().annotations).toEqual([
      {
        day: addDays(today, -5),
        text: 'tiktok connected (@acme_tt)',
        kind: 'platform_connected',
        ref: null,
        ...service,
      },
      {
        day: addDays(today, -3),
        text: 'Spring launch',
        category: 'launch',
        author: 'Dana',
        source: 'user',
        kind: 'note',
        ref: launch.id,
      },
      {
        day: addDays(today, -2),
        text: 'Crisis started: Negative mentions at 3.1x their usual share.',
        kind: 'crisis_started',
        ref: 'ale_crisis_a',
        ...service,
        category: 'crisis',
      },
      {
        day: addDays(today, -1),
        text: 'Crisis ended',
        kind: 'crisis_ended',
        ref: 'ale_crisis_a',
        ...service,
        category: 'crisis',
      },
      { day: today, text: 'instagram connected (@acme)', kind: 'platform_connected', ref: null, ...service },
      {
        day: today,
        text: `Audit completed: score ${audit.score.toFixed(1)} (${audit.grade})`,
        kind: 'audit_completed',
        ref: audit.audit_id,
        ...service,
      },
      {
        day: today,
        text: 'tiktok disconnected (@acme_tt)',
        kind: 'platform_disconnected',
        ref: null,
        ...service,
      },
    ]);

    // A narrower range keeps only its own days; weekly points leave each entry on its own day.
    const narrow = await t.request({
      method: 'GET',
      url: `/v1/score/history?start_date=${addDays(today, -4)}&end_date=${addDays(today, -2)}&granularity=weekly`,
      key,
    });
    expect(narrow.statusCode).toBe(200);
    expect(narrow.json().annotations.map((a: { kind: string; day: string }) => [a.kind, a.day])).toEqual([
      ['note', addDays(today, -3)],
      ['crisis_started', addDays(today, -2)],
    ]);
  });

  it("an agency reading a client's history sees the client's notes; other tenants stay 404", async () => {
    const today = utcDay(new Date());
    const agency = await workspaceWithKey(t.db, { plan: 'agency', accountType: 'agency' });
    const client = await workspaceWithKey(t.db, { plan: 'pro', parentId: agency.workspace.id });
    await storeScores(client.workspace.id, addDays(today, -5), 5);
    await note(client.key, { day: addDays(today, -2), text: 'Client note', category: 'press' });
    await note(agency.key, { day: addDays(today, -2), text: "The agency's own note" });
    const res = await t.request({
      method: 'GET',
      url: `/v1/score/history?workspace_id=${client.workspace.id}&start_date=${addDays(today, -5)}`,
      key: agency.key,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().annotations.map((a: { text: string }) => a.text)).toEqual(['Client note']);

    const stranger = await workspaceWithKey(t.db, { plan: 'agency' });
    expectProblem(
      await t.request({
        method: 'GET',
        url: `/v1/score/history?workspace_id=${client.workspace.id}`,
        key: stranger.key,
      }),
      404,
    );
  });

  it('a range with scores and no notes or events has an empty list', async () => {
    const { key, workspace } = await workspaceWithKey(t.db, { plan: 'pro' });
    await storeScores(workspace.id, '2025-01-01', 5);
    const res = await t.request({
      method: 'GET',
      url: '/v1/score/history?start_date=2025-01-01&end_date=2025-01-05&granularity=daily',
      key,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().annotations).toEqual([]);
  });
});
