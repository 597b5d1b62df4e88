import { expect } from 'vitest';
import type { Platform } from '../../src/core/catalog.ts';
import { runSyncJob, syncJob, type SyncJob } from '../../src/platforms/sync-worker.ts';
import { startSimulator, type Simulator } from '../../simulator/server.ts';
import { DAY_MS, utcDay } from '../../src/core/days.ts';
import { startTestService, workspaceWithKey, type TestService } from './service.ts';

/**
 * A platform simulator on the day of `now` (its clock still) and a test service pointed at it, with a
 * public URL for the OAuth redirect URI, the service's clock at `now`: the set-up of the files that
 * connect and sync through the simulator. Close both with `closeSimulatedService`.
 */
export async function startSimulatedService(now: Date): Promise<{ sim: Simulator; t: TestService }> {
  const sim = await startSimulator({ speed: 0, startDay: utcDay(now) });
  const t = await startTestService({}, { SIMULATOR_URL: sim.url, PUBLIC_URL: 'http://brandhealth.test' });
  t.setNow(now);
  return { sim, t };
}

export async function closeSimulatedService(s: { sim?: Simulator; t?: TestService }): Promise<void> {
  await s.t?.close();
  await s.sim?.close();
}

/** The browser-binding cookie a connect answer set, as a Cookie header value. */
export function bindingCookieOf(setCookie: string | string[] | undefined | null): string {
  const first = (Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? '';
  const pair = first.split(';')[0] ?? '';
  expect(pair, 'POST /connect sets the binding cookie').toMatch(/^bh_connect_[a-z]+=./);
  return pair;
}

/**
 * connect -> the simulator's consent screen (signed in as `login`, or its default account) -> callback,
 * all over HTTP, as a user would in one browser (the binding cookie of the connect answer goes with
 * the callback). The service must be started with SIMULATOR_URL. Returns the new connection's id.
 */
export async function connectThroughSimulator(
  t: TestService,
  o: { key: string; workspaceId: string; platform: Platform; login?: string },
): Promise<string> {
  const started = await t.request({ method: 'POST', url: `/v1/platforms/${o.platform}/connect`, key: o.key });
  expect(started.statusCode, started.body).toBe(200);
  const url = new URL(started.json().authorization_url);
  if (o.login) url.searchParams.set('login_hint', o.login);
  const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
  const done = await t.request({
    method: 'GET',
    url: `${back.pathname}${back.search}`,
    headers: { cookie: bindingCookieOf(started.headers['set-cookie']) },
  });
  expect(done.statusCode, done.body).toBe(200);
  if (done.json().status === 'pending_selection') {
    // Tests reuse simulator logins across workspaces: the account is live elsewhere, so it is picked
    // explicitly, sharing confirmed (docs/adr/0104-one-platform-account-in-several-workspaces.md).
    const accounts = done.json().accounts as Array<{ account_id: string; handle: string }>;
    const pick = accounts.find((a) => a.handle === (o.login ?? `sim${o.platform}`)) ?? accounts[0]!;
    const picked = await t.request({
      method: 'POST',
      url: `/v1/platforms/${o.platform}/connect/${done.json().id}/select`,
      key: o.key,
      payload: { account_id: pick.account_id, share: true },
    });
    expect(picked.statusCode, picked.body).toBe(200);
  }
  const { id } = await t.db
    .selectFrom('platform_connections')
    .select('id')
    .where('workspace_id', '=', o.workspaceId)
    .where('platform', '=', o.platform)
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * The same flow over real sockets, for a service in another process (or behind a load balancer):
 * connect at `origin`, consent at the simulator, and the callback at the redirect's path on `origin`.
 */
export async function connectThroughSimulatorOverHttp(
  origin: string,
  o: { key: string; platform: Platform; login: string },
): Promise<void> {
  const started = await fetch(`${origin}/v1/platforms/${o.platform}/connect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.key}` },
  });
  const body = await started.text();
  expect(started.status, body).toBe(200);
  const url = new URL(JSON.parse(body).authorization_url);
  url.searchParams.set('login_hint', o.login);
  const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
  const done = await fetch(`${origin}${back.pathname}${back.search}`, {
    redirect: 'manual',
    headers: { cookie: bindingCookieOf(started.headers.get('set-cookie')) },
  });
  expect(done.status, await done.text()).toBe(200);
}

/**
 * Runs the sync jobs queued for the platforms (by the connect flow's first sync or a scheduled round)
 * through the handler the workers use, as a test service has no workers. Returns their outcomes.
 */
export async function runQueuedSyncs(t: TestService, platforms: readonly Platform[]): Promise<string[]> {
  const outcomes: string[] = [];
  for (const platform of platforms) {
    const jobs = (await t.ctx.jobs.boss.fetch<SyncJob>(syncJob(platform).queue, { batchSize: 100 })) ?? [];
    for (const job of jobs) outcomes.push(await runSyncJob(t.ctx, job.data));
  }
  return outcomes;
}

/**
 * An agency workspace with real-time scoring and one account connected through the simulator, with a
 * `sync(daysOn)` that sets the service's clock `daysOn` days past `start` and runs the connection's sync
 * job (it must answer `synced`).
 */
export async function liveConnection(
  t: TestService,
  platform: Platform,
  login: string,
  start: Date,
): Promise<{
  key: string;
  workspace: { id: string; name: string };
  sync: (daysOn: number) => Promise<void>;
}> {
  const { key, workspace } = await workspaceWithKey(t.db, {
    plan: 'agency',
    accountType: 'agency',
    realtimeScoring: true,
  });
  const connectionId = await connectThroughSimulator(t, { key, workspaceId: workspace.id, platform, login });
  const sync = async (daysOn: number) => {
    const at = new Date(start.getTime() + daysOn * DAY_MS);
    t.setNow(at);
    expect(await runSyncJob(t.ctx, { connectionId, round: at.toISOString(), attempt: 1 })).toBe('synced');
  };
  return { key, workspace, sync };
}
