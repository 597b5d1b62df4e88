import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { demoStartDay } from '../../simulator/live-history.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { seedMetrics } from './audits.fixtures.ts';

/**
 * `npm run demo`'s simulator clock across restarts (simulator/live.ts): a first run starts 60 days back;
 * a restart, whose platforms hold the tokens a previous simulator issued, resumes at the latest day that
 * simulator delivered instead of winding back and replaying (and first deleting) those days.
 */
let t: TestService;
const TODAY = utcDay(new Date());
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

describe('demoStartDay', () => {
  it('starts a first run 60 days back, and a restart where the last run had got to', async () => {
    const { workspace } = await workspaceWithKey(
      t.db,
      { plan: 'agency' },
      { platforms: [{ platform: 'instagram' }, { platform: 'twitter' }] },
    );
    // The seeded history runs to today, through connections made without OAuth: a first run.
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram', 'twitter'], asOf: TODAY, days: 120 });
    expect(await demoStartDay(t.db, workspace.id, TODAY, 60)).toEqual({
      day: addDays(TODAY, -60),
      resumed: false,
    });

    // The last run connected them through its simulator (tokens) and had reached 12 days ago.
    const reached = addDays(TODAY, -12);
    await t.db
      .deleteFrom('metric_snapshots')
      .where('workspace_id', '=', workspace.id)
      .where('day', '>', reached)
      .execute();
    await sql`UPDATE platform_connections SET access_token = 'sealed', access_token_key_id = 'k1' WHERE workspace_id = ${workspace.id}`.execute(
      t.db,
    );
    expect(await demoStartDay(t.db, workspace.id, TODAY, 60)).toEqual({ day: reached, resumed: true });

    // A clock that had caught up resumes today, never ahead of it.
    await seedMetrics(t.db, workspace.id, { platforms: ['instagram'], asOf: TODAY, days: 12 });
    expect(await demoStartDay(t.db, workspace.id, TODAY, 60)).toEqual({ day: TODAY, resumed: true });
  });
});
