import { CURRENT_FORMULA } from '../../src/scoring/daily-scores.ts';
import { expect } from 'vitest';
import { workspaceWithKey, type TestService } from '../helpers/service.ts';

/** The client's stored daily scores: the week 2030-01-14 to 01-20 goes from 60 to 66.5 (momentum +8). */
export const DAY_ROWS = [
  { day: '2030-01-13', score: 58, presence: 49, reach: 54, impact: 59, sentiment: 66, momentum: 68 },
  { day: '2030-01-14', score: 60, presence: 50, reach: 55, impact: 60, sentiment: 65, momentum: 70 },
  { day: '2030-01-17', score: 63.2, presence: 51, reach: 59, impact: 60.5, sentiment: 64.5, momentum: 74 },
  { day: '2030-01-20', score: 66.5, presence: 52, reach: 63.5, impact: 61, sentiment: 64, momentum: 78 },
];

/** An agency and one client of it with a week of scores, a note, an audit and a campaign. */
export async function agencyWithClient(t: TestService, label: string) {
  const agency = await workspaceWithKey(t.db, {
    plan: 'agency',
    accountType: 'agency',
    name: `${label} Agency`,
  });
  const client = await workspaceWithKey(
    t.db,
    { plan: 'pro', parentId: agency.workspace.id, name: `${label} Coffee` },
    { platforms: [{ platform: 'instagram', handle: `@${label.toLowerCase()}coffee` }] },
  );
  await t.db
    .insertInto('daily_scores')
    .values(
      DAY_ROWS.map((r) => ({ ...r, workspace_id: client.workspace.id, formula_version: CURRENT_FORMULA })),
    )
    .execute();
  const note = await t.request({
    method: 'POST',
    url: '/v1/annotations',
    key: client.key,
    payload: { day: '2030-01-16', text: 'Winter menu launch', category: 'launch' },
  });
  expect(note.statusCode).toBe(201);
  await t.db
    .insertInto('audits')
    .values({
      id: `aud_${label}_1`,
      workspace_id: client.workspace.id,
      status: 'completed',
      platforms: ['instagram'],
      lookback_days: 90,
      estimated_completion: new Date('2030-01-17T10:00:00Z'),
      created_at: new Date('2030-01-17T10:00:00Z'),
      completed_at: new Date('2030-01-17T10:01:00Z'),
      score: 64.2,
      grade: 'moderate',
      formula_version: CURRENT_FORMULA,
      pillars: '{}',
      recommendations: JSON.stringify([
        {
          priority: 1,
          pillar: 'reach',
          action: 'Post three reels a week',
          expected_impact: '+4.2 points on reach',
        },
      ]),
      industry_benchmark: '{}',
    })
    .execute();
  await t.db
    .insertInto('campaigns')
    .values({
      id: `cmp_${label}_1`,
      workspace_id: client.workspace.id,
      name: 'Winter launch',
      start_date: '2030-01-07',
      duration_weeks: 8,
      status: 'active',
      score_at_start: 58,
      created_at: new Date('2030-01-01T00:00:00Z'),
    })
    .execute();
  await t.db
    .insertInto('campaign_phases')
    .values([
      {
        campaign_id: `cmp_${label}_1`,
        position: 0,
        name: 'Foundation',
        start_week: 1,
        weeks: 2,
        status: 'completed',
      },
      {
        campaign_id: `cmp_${label}_1`,
        position: 1,
        name: 'Build',
        start_week: 3,
        weeks: 2,
        status: 'active',
      },
      {
        campaign_id: `cmp_${label}_1`,
        position: 2,
        name: 'Peak',
        start_week: 5,
        weeks: 2,
        status: 'upcoming',
      },
      {
        campaign_id: `cmp_${label}_1`,
        position: 3,
        name: 'Echo',
        start_week: 7,
        weeks: 2,
        status: 'upcoming',
      },
    ])
    .execute();
  return { agency, client };
}
