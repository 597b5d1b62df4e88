import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCampaignLifecycle } from '../../src/campaigns/lifecycle.ts';
import { loadConfig } from '../../src/infra/config.ts';
import { newId } from '../../src/infra/ids.ts';
import { createService, type Service } from '../../src/service.ts';
import { createTestDatabase, usingPostgres } from '../helpers/database.ts';
import { workspaceWithKey } from '../helpers/service.ts';

/**
 * The scheduled lifecycle, run by calling the job's function with the clock moved. The service
 * is restarted on the same database half-way (PGlite in a temp folder, not memory://).
 */

interface Store {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

async function openStore(): Promise<Store> {
  if (usingPostgres()) return createTestDatabase();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bh-campaigns-'));
  return { databaseUrl: null, dataDir: dir, drop: () => fs.rm(dir, { recursive: true, force: true }) };
}

let clock = new Date('2030-01-01T00:00:00Z');
let store: Store;
let service: Service;

async function startService(runWorkers = false): Promise<Service> {
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', AUTH_CACHE_TTL_MS: '0' }),
    databaseUrl: store.databaseUrl,
    dataDir: store.dataDir,
    runWorkers,
  };
  return createService(config, { now: () => clock, dataDir: store.dataDir });
}

beforeAll(async () => {
  store = await openStore();
  service = await startService();
});
afterAll(async () => {
  await service?.stop();
  await store?.drop();
});

const at = (iso: string) => {
  clock = new Date(iso);
};
const run = () => runCampaignLifecycle(service.ctx);

interface PhaseChanged {
  campaign_id: string;
  workspace_id: string;
  campaign_name: string;
  from_phase: string | null;
  to_phase: string | null;
  changed_at: string;
}

async function events(campaignId: string) {
  const rows = await service.ctx.db
    .selectFrom('events')
    .select(['data', 'workspace_id', 'type'])
    .where('type', '=', 'campaign.phase_changed')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows
    .map((r) => ({ ...(r.data as PhaseChanged), event_workspace: r.workspace_id }))
    .filter((d) => d.campaign_id === campaignId)
    .sort((a, b) => a.changed_at.localeCompare(b.changed_at));
}

async function phaseStatuses(campaignId: string) {
  const rows = await service.ctx.db
    .selectFrom('campaign_phases')
    .select('status')
    .where('campaign_id', '=', campaignId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.status);
}

async function campaignRow(campaignId: string) {
  return service.ctx.db
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', campaignId)
    .executeTakeFirstOrThrow();
}

async function audit(workspaceId: string, score: number, completedAt: string) {
  const when = new Date(completedAt);
  await service.ctx.db
    .insertInto('audits')
    .values({
      id: newId('aud'),
      workspace_id: workspaceId,
      status: 'completed',
      platforms: ['instagram'],
      lookback_days: 90,
      estimated_completion: when,
      created_at: when,
      completed_at: when,
      score,
      pillars: JSON.stringify({}),
      formula_version: 'v1',
    })
    .execute();
}

function request(key: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return service.app.inject({ method, url, payload, headers: { authorization: `Bearer ${key}` } });
}

describe('campaign lifecycle job', () => {
  let key: string;
  let workspaceId: string;
  let arc: string;
  let sprint: string;
  let cancelled: string;

  it('leaves campaigns alone until their start date', async () => {
    const fixture = await workspaceWithKey(service.ctx.db, {
      plan: 'agency',
      accountType: 'agency',
      name: 'Lifecycle',
    });
    key = fixture.key;
    workspaceId = fixture.workspace.id;
    await audit(workspaceId, 61, '2029-12-20T10:00:00Z');
    // 10 weeks from Tue 2030-01-08: Foundation 1-3, Build 4-6, Peak 7-8, Echo 9-10, ends 2030-03-19.
    arc = (
      await request(key, 'POST', '/v1/campaigns', {
        name: 'Arc',
        start_date: '2030-01-08',
        duration_weeks: 10,
      })
    ).json().id;
    sprint = (
      await request(key, 'POST', '/v1/campaigns', {
        name: 'Sprint',
        start_date: '2030-01-15',
        duration_weeks: 2,
      })
    ).json().id;
    cancelled = (
      await request(key, 'POST', '/v1/campaigns', { name: 'Off', start_date: '2030-01-08' })
    ).json().id;
    expect((await request(key, 'POST', `/v1/campaigns/${cancelled}/cancel`)).statusCode).toBe(200);

    at('2030-01-07T23:59:59Z');
    expect(await run()).toEqual({ campaigns: 0, transitions: 0 });
    expect((await campaignRow(arc)).status).toBe('draft');
    expect(await events(arc)).toEqual([]);
  });

  it('activates on the start date with one event, captures score_at_start, and a second run fires nothing', async () => {
    at('2030-01-08T00:07:00Z');
    expect(await run()).toEqual({ campaigns: 1, transitions: 1 });
    expect(await run()).toEqual({ campaigns: 0, transitions: 0 });
    const row = await campaignRow(arc);
    expect(row.status).toBe('active');
    expect(row.score_at_start).toBe(61);
    expect(await phaseStatuses(arc)).toEqual(['active', 'upcoming', 'upcoming', 'upcoming']);
    expect(await events(arc)).toEqual([
      {
        campaign_id: arc,
        workspace_id: workspaceId,
        event_workspace: workspaceId,
        campaign_name: 'Arc',
        from_phase: null,
        to_phase: 'foundation',
        changed_at: '2030-01-08T00:00:00.000Z',
      },
    ]);
    // The cancelled campaign started on the same day and stays put.
    expect((await campaignRow(cancelled)).status).toBe('cancelled');
    expect(await events(cancelled)).toEqual([]);
  });

  it('reports progress and the score delta in the list without moving anything', async () => {
    await audit(workspaceId, 65.2, '2030-01-12T09:00:00Z');
    at('2030-01-18T00:00:00Z'); // day 10 of Foundation's 21
    const res = await request(key, 'GET', '/v1/campaigns?status=active');
    expect(res.json().campaigns).toEqual([
      expect.objectContaining({
        id: arc,
        status: 'active',
        current_phase: 'foundation',
        phase_progress: 47,
        score_at_start: 61,
        score_current: 65.2,
        score_delta: '+4.2',
      }),
    ]);
    // Reads never drive the lifecycle: the sprint (due 2030-01-15) is still a draft until a run.
    expect((await campaignRow(sprint)).status).toBe('draft');
  });

  it('moves phase by phase with exactly one event each, also when two runs race', async () => {
    at('2030-01-29T00:00:00Z'); // week 4: Build. The sprint ran 01-15..01-29 and is over too.
    expect(await run()).toEqual({ campaigns: 2, transitions: 4 });
    expect(await phaseStatuses(arc)).toEqual(['completed', 'active', 'upcoming', 'upcoming']);

    at('2030-02-19T03:00:00Z'); // week 7: Peak
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.transitions + b.transitions).toBe(1);
    expect(await phaseStatuses(arc)).toEqual(['completed', 'completed', 'active', 'upcoming']);
    expect((await events(arc)).map((e) => [e.from_phase, e.to_phase])).toEqual([
      [null, 'foundation'],
      ['foundation', 'build'],
      ['build', 'peak'],
    ]);
  });

  it('catches up a campaign whose whole calendar passed between runs, one event per boundary', async () => {
    const sprintEvents = await events(sprint);
    expect(sprintEvents.map((e) => [e.from_phase, e.to_phase, e.changed_at])).toEqual([
      [null, 'foundation', '2030-01-15T00:00:00.000Z'],
      ['foundation', 'build', '2030-01-22T00:00:00.000Z'],
      ['build', null, '2030-01-29T00:00:00.000Z'],
    ]);
    const row = await campaignRow(sprint);
    expect(row.status).toBe('completed');
    // Captured as of the start date, not as of the late run.
    expect(row.score_at_start).toBe(65.2);
    expect(await phaseStatuses(sprint)).toEqual(['completed', 'completed']);
    const listed = (await request(key, 'GET', '/v1/campaigns?status=completed')).json().campaigns;
    expect(listed).toEqual([
      expect.objectContaining({ id: sprint, current_phase: 'build', phase_progress: 100 }),
    ]);
  });

  it('fires nothing twice across a restart and catches up after downtime', async () => {
    await service.stop();
    service = await startService();
    expect(await run()).toEqual({ campaigns: 0, transitions: 0 });
    expect(await events(arc)).toHaveLength(3);

    // Down over week 9 (Echo) and the end on 2030-03-19: both boundaries are taken on restart.
    await service.stop();
    at('2030-03-25T00:00:00Z');
    service = await startService(true);
    await service.startWorkers();
    // The start-up run requested by the service itself, through pg-boss.
    const deadline = Date.now() + 20_000;
    while ((await campaignRow(arc)).status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await campaignRow(arc)).status).toBe('completed');
    expect(await phaseStatuses(arc)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect((await events(arc)).map((e) => [e.from_phase, e.to_phase, e.changed_at])).toEqual([
      [null, 'foundation', '2030-01-08T00:00:00.000Z'],
      ['foundation', 'build', '2030-01-29T00:00:00.000Z'],
      ['build', 'peak', '2030-02-19T00:00:00.000Z'],
      ['peak', 'echo', '2030-03-05T00:00:00.000Z'],
      ['echo', null, '2030-03-19T00:00:00.000Z'],
    ]);
    expect(await run()).toEqual({ campaigns: 0, transitions: 0 });
    const total = await service.ctx.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', 'campaign.phase_changed')
      .executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(8); // 5 for the arc, 3 for the sprint
    // Each event was queued for webhook delivery in the same transaction.
    const fanout = await service.ctx.jobs.boss.findJobs('webhooks.fanout');
    expect(fanout.length).toBeGreaterThanOrEqual(8);
  });
});
