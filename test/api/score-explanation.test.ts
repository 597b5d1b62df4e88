// Why the score is what it is (docs/scoring.md "Why the score is what it is"): a v3 audit and
// GET /v1/score carry the ranked drivers of the score, a scenario that clearly moves one pillar puts
// that pillar's reading first, score.changed explains the change from the previous score's stored
// drivers, and stored v2 results carry none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, LAST } from '../helpers/v3-scenarios.ts';
import { alter } from '../helpers/synthetic.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { insertCompletedAudit, runJob } from './audits.fixtures.ts';
import { snapshotRow, upsertSnapshots } from '../../src/ingest/store.ts';
import { addDays } from '../../src/core/days.ts';
import type { DailySnapshot } from '../../src/core/metric-snapshot.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

const at = (day: string) => new Date(`${day}T06:00:00Z`);

interface Driver {
  pillar: string;
  platform: string | null;
  metric: string;
  value: number;
  median: number;
  points: number;
  text: string;
}

/** A Pro workspace with Instagram connected and `snapshots` stored. */
async function workspaceWith(snapshots: readonly DailySnapshot[]) {
  const { workspace, key } = await workspaceWithKey(
    t.db,
    { plan: 'pro' },
    { platforms: [{ platform: 'instagram' }] },
  );
  await upsertSnapshots(
    t.db,
    snapshots.map((s) => snapshotRow(workspace.id, s, 'sandbox')),
  );
  return { workspace, key };
}

/** Runs an audit as of `day` through the API and reads it back. */
async function audit(key: string, day: string) {
  t.setNow(at(day));
  try {
    const started = await t.request({ method: 'POST', url: '/v1/audit/run', key, payload: {} });
    expect(started.statusCode, started.body).toBe(200);
    expect(await runJob(t.ctx, started.json().audit_id)).toBe('completed');
    const read = await t.request({ method: 'GET', url: `/v1/audit/${started.json().audit_id}`, key });
    expect(read.statusCode, read.body).toBe(200);
    return read.json();
  } finally {
    t.setNow(undefined);
  }
}

/** The review's crisis over the last 7 days: comments x5, mentions x10, likes x0.85, 85% negative. */
function crisis(snaps: readonly DailySnapshot[]): DailySnapshot[] {
  return alter(snaps, addDays(LAST, -6), LAST, (s) => {
    const talk = 7.5 * (s.sentimentPositive + s.sentimentNeutral + s.sentimentNegative);
    return {
      ...s,
      comments: 5 * s.comments,
      mentions: 10 * s.mentions,
      likes: Math.round(0.85 * s.likes),
      sentimentNegative: Math.round(0.85 * talk),
      sentimentPositive: Math.round(0.05 * talk),
      sentimentNeutral: Math.round(0.1 * talk),
    };
  });
}

const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);

describe('drivers of a v3 score', () => {
  it('an audit and GET /v1/score give every reading, largest effect first, summing to score - 50', async () => {
    const { key } = await workspaceWith(account(80_000, 3));
    const result = await audit(key, LAST);
    expect(result.formula_version).toBe('v3');
    const drivers = result.drivers as Driver[];
    expect(drivers.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < drivers.length; i++)
      expect(Math.abs(drivers[i - 1]!.points)).toBeGreaterThanOrEqual(Math.abs(drivers[i]!.points));
    // Each pillar of the platform has its readings, each with its figures and a sentence in words.
    expect(new Set(drivers.map((d) => d.pillar))).toEqual(
      new Set(['presence', 'reach', 'impact', 'sentiment', 'momentum']),
    );
    for (const d of drivers) {
      expect(d.platform).toBe('instagram');
      expect(Number.isFinite(d.value) && Number.isFinite(d.median)).toBe(true);
      expect(d.text).toMatch(/on Instagram/);
      expect(d.text).not.toContain(d.metric);
    }
    // The points reproduce the score (each rounds to 0.01, the score to 0.1).
    expect(Math.abs(50 + sum(drivers.map((d) => d.points)) - result.score)).toBeLessThanOrEqual(
      0.1 + 0.005 * drivers.length,
    );

    t.setNow(at(LAST));
    try {
      const score = await t.request({ method: 'GET', url: '/v1/score', key });
      expect(score.statusCode, score.body).toBe(200);
      expect(score.json()).toMatchObject({ source: 'audit', formula_version: 'v3', drivers });
    } finally {
      t.setNow(undefined);
    }
  });

  it('the top driver names the pillar a scenario clearly moves: posting stopped, a crisis', async () => {
    const quiet = alter(account(80_000, 3), addDays(LAST, -89), LAST, (s) => ({
      ...s,
      posts: s.day.endsWith('5') ? s.posts : 0,
    }));
    const q = await audit((await workspaceWith(quiet)).key, LAST);
    expect(q.drivers[0]).toMatchObject({ pillar: 'presence', metric: 'posts_per_week' });
    expect(q.drivers[0].points).toBeLessThan(-2);
    expect(q.drivers[0].text).toMatch(/^Posts a week on Instagram: .* holds the score back/);

    const c = await audit((await workspaceWith(crisis(account(80_000, 3)))).key, LAST);
    expect(c.drivers[0]).toMatchObject({ pillar: 'sentiment', metric: 'net_sentiment' });
    expect(c.drivers[0].points).toBeLessThan(-2);
    expect(c.drivers[0].text).toMatch(/^Net sentiment on Instagram: .* holds the score back/);
  });
});

describe('score.changed explains what moved the score', () => {
  async function scoreEvents(workspaceId: string) {
    const rows = await t.db
      .selectFrom('events')
      .select('data')
      .where('workspace_id', '=', workspaceId)
      .where('type', '=', 'score.changed')
      .execute();
    return rows.map((r) => r.data as Record<string, any>);
  }

  it('a crisis since the previous audit: the explanation names sentiment first, from the stored drivers', async () => {
    const { workspace, key } = await workspaceWith(crisis(account(80_000, 3)));
    // The previous audit a week before: calm (the crisis days are after its day, so it reads none).
    const before = await audit(key, addDays(LAST, -7));
    const stored = await t.db
      .selectFrom('audits')
      .select('drivers')
      .where('id', '=', before.audit_id)
      .executeTakeFirstOrThrow();
    expect(Array.isArray(stored.drivers)).toBe(true);
    // The day's stored score keeps them too (what a sync's score.changed explains from).
    const day = await t.db
      .selectFrom('daily_scores')
      .select('drivers')
      .where('workspace_id', '=', workspace.id)
      .where('formula_version', '=', 'v3')
      .where('day', '=', addDays(LAST, -7))
      .executeTakeFirstOrThrow();
    expect(Array.isArray(day.drivers)).toBe(true);

    const after = await audit(key, LAST);
    const [event] = await scoreEvents(workspace.id);
    expect(event).toBeDefined();
    expect(event!).toMatchObject({ audit_id: after.audit_id, previous_score: before.score });
    const explanation = event!.explanation;
    expect(explanation.drivers[0]).toMatchObject({
      pillar: 'sentiment',
      platform: 'instagram',
      metric: 'net_sentiment',
    });
    expect(explanation.drivers[0].after).toBeLessThan(explanation.drivers[0].before);
    expect(explanation.drivers[0].text).toMatch(/^Net sentiment on Instagram fell from/);
    expect(explanation.summary).toMatch(/^The score fell .* net sentiment on Instagram/);
    // The parts, the rest and the rounding add up to the change.
    const total = sum(explanation.drivers.map((d: Driver) => d.points)) + explanation.other_points;
    expect(total + explanation.rounding).toBeCloseTo(Number(event!.change), 1);
  });

  it('a previous v3 audit stored without drivers: the event still fires, with explanation null', async () => {
    const { workspace, key } = await workspaceWith(crisis(account(80_000, 3)));
    const yesterday = at(addDays(LAST, -1));
    await insertCompletedAudit(
      t.db,
      {
        id: `aud_no_drivers_${workspace.id.slice(-8)}`,
        workspaceId: workspace.id,
        at: yesterday,
        score: 50,
        grade: 'moderate',
      },
      { formula_version: 'v3', crisis: null, baseline_version: '2025.1' },
    );
    await audit(key, LAST);
    const [event] = await scoreEvents(workspace.id);
    expect(event).toMatchObject({ previous_score: 50, explanation: null });
  });
});

describe('stored v2 results carry no drivers', () => {
  it('a v2 audit: neither the audit nor GET /v1/score has drivers', async () => {
    const { workspace, key } = await workspaceWithKey(t.db, { plan: 'pro' });
    const when = at(addDays(LAST, -1));
    const id = `aud_v2_${workspace.id.slice(-8)}`;
    await insertCompletedAudit(
      t.db,
      { id, workspaceId: workspace.id, at: when, score: 61.2, grade: 'strong' },
      {
        formula_version: 'v2',
        score_low: 58,
        score_high: 64,
        stale: false,
        latest_data_day: addDays(LAST, -1),
        authenticity_flags: '[]',
        pillars: JSON.stringify(
          Object.fromEntries(
            ['presence', 'reach', 'impact', 'sentiment', 'momentum'].map((k) => [
              k,
              { score: 61, change: '+0.0', grade: 'green', value: 61.2 },
            ]),
          ),
        ),
      },
    );
    t.setNow(at(LAST));
    try {
      const read = await t.request({ method: 'GET', url: `/v1/audit/${id}`, key });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().formula_version).toBe('v2');
      expect(read.json()).not.toHaveProperty('drivers');
      const score = await t.request({ method: 'GET', url: '/v1/score', key });
      expect(score.statusCode, score.body).toBe(200);
      expect(score.json()).toMatchObject({ formula_version: 'v2', source: 'audit' });
      expect(score.json()).not.toHaveProperty('drivers');
    } finally {
      t.setNow(undefined);
    }
  });
});
