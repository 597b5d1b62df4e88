import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startSimulator, type FaultAnswer, type Simulator } from '../../simulator/server.ts';
import {
  BREAKER_THRESHOLD,
  FAILURE_ALERT_AFTER,
  MAX_SYNC_ATTEMPTS,
  runSyncJob,
  syncJob,
  TOKEN_WARNING_DAYS,
  warnExpiringTokens,
  type SyncJob,
} from '../../src/platforms/sync-worker.ts';
import { nextPacificMidnight } from '../../src/ingest/connectors/youtube.ts';
import { utcDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';
import { connectThroughSimulator } from '../helpers/simulator-oauth.ts';
import { startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';

/**
 * What the scheduler does with each kind of platform error, partial success, and connection health
 * (docs/ingestion.md "Scheduled sync", "Connection health"): real syncs against the simulator, whose
 * control API (/_sim/faults `answers`) makes the platform answer a given status, body and headers.
 */
let sim: Simulator;
let t: TestService;
const NOW = new Date();
const ENV = () => ({ SIMULATOR_URL: sim.url, PUBLIC_URL: 'http://brandhealth.test' });

beforeAll(async () => {
  sim = await startSimulator({ speed: 0, startDay: utcDay(NOW) });
  t = await startTestService({}, ENV());
  t.setNow(NOW);
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** The platform answers these next, through the simulator's control API. */
async function answer(platform: Platform, answers: FaultAnswer[]): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ platform, faults: { answers } }),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function control(path: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sim.url}/_sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

/** A workspace with one connection made through the simulator's consent screen. */
async function connected(s: TestService, platform: Platform, login: string) {
  const w = await workspaceWithKey(s.db, { plan: 'agency' });
  const id = await connectThroughSimulator(s, { key: w.key, workspaceId: w.workspace.id, platform, login });
  // The connect flow's first sync is left queued: the tests run their own jobs.
  await sql`DELETE FROM pgboss.job WHERE name = ${syncJob(platform).queue}`.execute(s.db);
  return { ...w, id };
}

const job = (connectionId: string, attempt = 1): SyncJob => ({
  connectionId,
  round: NOW.toISOString(),
  attempt,
});

async function row(s: TestService, id: string) {
  return s.db
    .selectFrom('platform_connections')
    .select([
      'status',
      'health_reason',
      'health_scope',
      'consecutive_failures',
      'last_error_class',
      'next_sync_at',
      'sync_failures',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function events(s: TestService, workspaceId: string, type: string) {
  return s.db
    .selectFrom('events')
    .select('data')
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', type as never)
    .execute();
}

async function listed(s: TestService, key: string, platform: Platform) {
  const res = await s.request({ method: 'GET', url: `/v1/platforms/${platform}`, key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function queued(s: TestService, platform: Platform, connectionId: string) {
  const { rows } = await sql<{ data: SyncJob; start_after: Date }>`
    SELECT data, start_after FROM pgboss.job
    WHERE name = ${syncJob(platform).queue} AND state = 'created'`.execute(s.db);
  return rows.filter((r) => r.data.connectionId === connectionId);
}

const apiCalls = (platform: Platform) => Object.values(sim.stats()[platform]).reduce((sum, n) => sum + n, 0);

/**
 * Google answers a call whose token lacks a scope with 403 and a Bearer challenge naming the scopes
 * that would do (RFC 6750 3.1, https://datatracker.ietf.org/doc/html/rfc6750#section-3.1; Google's
 * header as captured in https://github.com/kwent/react-google-contacts/issues/6).
 */
const ANALYTICS_SCOPE = 'https://www.googleapis.com/auth/yt-analytics.readonly';
const insufficientScope = (path: string, scope: string, times = 1): FaultAnswer => ({
  status: 403,
  path,
  times,
  headers: {
    'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${scope}"`,
  },
  body: {
    error: {
      code: 403,
      message: 'Request had insufficient authentication scopes.',
      errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
      status: 'PERMISSION_DENIED',
    },
  },
});

describe('partial success', () => {
  it('stores what succeeded, records the failed call and shows it, then clears it when the call succeeds', async () => {
    const c = await connected(t, 'youtube', 'partialbrand');
    await answer('youtube', [insufficientScope('/analytics/reports', ANALYTICS_SCOPE)]);
    expect(await runSyncJob(t.ctx, job(c.id))).toBe('synced');

    // The channel (followers, profile) and its uploads (posts) are stored; views are not.
    const snaps = await t.db
      .selectFrom('metric_snapshots')
      .select(['day', 'followers', 'posts', 'impressions'])
      .where('workspace_id', '=', c.workspace.id)
      .execute();
    expect(snaps.length).toBeGreaterThan(30);
    expect(snaps.every((s) => s.followers > 0)).toBe(true);
    expect(snaps.reduce((n, s) => n + s.posts, 0)).toBeGreaterThan(0);
    expect(snaps.every((s) => s.impressions === 0)).toBe(true);

    const first = await row(t, c.id);
    expect(first).toMatchObject({ status: 'connected', consecutive_failures: 0, last_error_class: null });
    expect(first.sync_failures).toEqual([
      {
        call: 'GET /v2/reports',
        metric: 'views,engagement,audience_history',
        kind: 'permission_missing',
        scope: ANALYTICS_SCOPE,
        message: expect.stringContaining('insufficient authentication scopes'),
        since: NOW.toISOString(),
        at: NOW.toISOString(),
      },
    ]);
    const shown = await listed(t, c.key, 'youtube');
    expect(shown.status).toBe('connected');
    expect(shown.health).toMatchObject({
      status: 'degraded',
      reason: 'partial_failure',
      missing_scope: ANALYTICS_SCOPE,
      last_success_at: NOW.toISOString(),
      failures: [{ call: 'GET /v2/reports', kind: 'permission_missing', scope: ANALYTICS_SCOPE }],
    });
    expect(shown.health.coverage.presence.level).toBe('full');
    expect(shown.health.coverage.reach.level).toBe('partial');
    expect(shown.health.coverage.reach.missing.map((m: { data: string }) => m.data).sort()).toEqual([
      'audience_history',
      'views',
    ]);
    const degraded = await events(t, c.workspace.id, 'platform.connection_degraded');
    expect(degraded.map((e) => e.data)).toEqual([
      expect.objectContaining({
        platform: 'youtube',
        missing: [
          { call: 'GET /v2/reports', metric: 'views,engagement,audience_history', scope: ANALYTICS_SCOPE },
        ],
        reconnect: 'POST /v1/platforms/youtube/connect',
      }),
    ]);

    // Still failing an hour later: the same failure, first seen at the first sync; no second event.
    const later = new Date(NOW.getTime() + 3600_000);
    t.setNow(later);
    try {
      await answer('youtube', [insufficientScope('/analytics/reports', ANALYTICS_SCOPE)]);
      expect(await runSyncJob(t.ctx, job(c.id))).toBe('synced');
      expect((await row(t, c.id)).sync_failures).toMatchObject([
        { since: NOW.toISOString(), at: later.toISOString() },
      ]);
      expect(await events(t, c.workspace.id, 'platform.connection_degraded')).toHaveLength(1);

      // The call succeeds again (the brand granted the scope): the failure is gone, views are stored.
      expect(await runSyncJob(t.ctx, job(c.id))).toBe('synced');
    } finally {
      t.setNow(NOW);
    }
    expect((await row(t, c.id)).sync_failures).toEqual([]);
    const healed = await listed(t, c.key, 'youtube');
    expect(healed.health).toMatchObject({ status: 'healthy', reason: null, failures: [] });
    expect(healed.health.coverage.reach).toEqual({ level: 'full', missing: [] });
    expect(healed.health.latest_data_day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const views = await t.db
      .selectFrom('metric_snapshots')
      .select((eb) => eb.fn.sum<number>('impressions').as('n'))
      .where('workspace_id', '=', c.workspace.id)
      .executeTakeFirstOrThrow();
    expect(Number(views.n)).toBeGreaterThan(0);
  });
});

describe('one policy per error kind', () => {
  it("one account's refused tokens, missing permissions or gone account never open the breaker; five platform failures do", async () => {
    const accounts = [];
    for (const login of ['brk1', 'brk2', 'brk3', 'brk4', 'brk5', 'brk6'])
      accounts.push(await connected(t, 'youtube', login));
    const [r1, r2, p1, p2, gone, healthy] = accounts as [
      (typeof accounts)[0],
      (typeof accounts)[0],
      (typeof accounts)[0],
      (typeof accounts)[0],
      (typeof accounts)[0],
      (typeof accounts)[0],
    ];

    // Two revoked grants: the access token is refused (401), and so is the refresh on the retry.
    for (const login of ['brk1', 'brk2']) {
      await control('expire-access-tokens', { platform: 'youtube', handle: login });
      await control('revoke-refresh-tokens', { platform: 'youtube', handle: login });
    }
    for (const c of [r1, r2]) {
      expect(await runSyncJob(t.ctx, job(c.id))).toBe('deferred');
      expect(await runSyncJob(t.ctx, job(c.id, 2))).toBe('reauth_required');
    }
    // Two tokens without the Data API scope, on the call every sync needs.
    for (const c of [p1, p2]) {
      await answer('youtube', [
        insufficientScope('/data/channels', 'https://www.googleapis.com/auth/youtube.readonly'),
      ]);
      expect(await runSyncJob(t.ctx, job(c.id))).toBe('reauth_required');
    }
    // A channel that no longer exists (410 Gone, RFC 9110 15.5.11).
    await answer('youtube', [{ status: 410, path: '/data/channels', body: { error: { message: 'gone' } } }]);
    expect(await runSyncJob(t.ctx, job(gone.id))).toBe('reauth_required');

    // Seven 4xx in a row: the breaker is still closed, the healthy account syncs.
    const calls = apiCalls('youtube');
    expect(await runSyncJob(t.ctx, job(healthy.id))).toBe('synced');
    expect(apiCalls('youtube')).toBeGreaterThan(calls);

    // What each connection says, in the database, the events and the listing.
    expect(await row(t, r1.id)).toMatchObject({
      status: 'reauth_required',
      health_reason: 'refresh_refused',
    });
    expect(await row(t, p1.id)).toMatchObject({
      status: 'reauth_required',
      health_reason: 'permission_missing',
      health_scope: 'https://www.googleapis.com/auth/youtube.readonly',
      consecutive_failures: 0,
    });
    expect(await row(t, gone.id)).toMatchObject({ status: 'reauth_required', health_reason: 'account_gone' });
    expect((await events(t, p1.workspace.id, 'platform.reauth_required')).map((e) => e.data)).toEqual([
      expect.objectContaining({
        platform: 'youtube',
        reason: 'permission_missing',
        scope: 'https://www.googleapis.com/auth/youtube.readonly',
        reconnect: 'POST /v1/platforms/youtube/connect',
      }),
    ]);
    expect((await events(t, gone.workspace.id, 'platform.reauth_required')).map((e) => e.data)).toEqual([
      expect.objectContaining({ reason: 'account_gone' }),
    ]);
    expect((await events(t, r2.workspace.id, 'platform.reauth_required')).map((e) => e.data)).toEqual([
      expect.objectContaining({ reason: 'refresh_refused' }),
    ]);
    expect((await listed(t, p1.key, 'youtube')).health).toMatchObject({
      status: 'needs_reauth',
      reason: 'permission_missing',
      missing_scope: 'https://www.googleapis.com/auth/youtube.readonly',
    });
    expect(await listed(t, gone.key, 'youtube')).toMatchObject({
      status: 'reauth_required',
      next_sync_at: null,
      health: { status: 'unsupported', reason: 'account_gone' },
    });
    expect((await listed(t, r1.key, 'youtube')).health).toMatchObject({
      status: 'needs_reauth',
      reason: 'refresh_refused',
    });
    // A connection that needs the brand is not synced again.
    expect(await runSyncJob(t.ctx, job(p1.id))).toBe('skipped');

    // Five platform failures (5xx) in a row open it: the next sync does not call the platform.
    await answer('youtube', [
      { status: 503, body: { error: { message: 'backend error' } }, times: BREAKER_THRESHOLD },
    ]);
    for (let attempt = 1; attempt <= BREAKER_THRESHOLD; attempt++)
      expect(await runSyncJob(t.ctx, job(healthy.id, attempt))).toBe(
        attempt < MAX_SYNC_ATTEMPTS ? 'deferred' : 'failed',
      );
    expect(await row(t, healthy.id)).toMatchObject({
      health_reason: 'platform_unavailable',
      consecutive_failures: BREAKER_THRESHOLD,
    });
    expect(await events(t, healthy.workspace.id, 'platform.connection_failed')).toEqual([
      {
        data: expect.objectContaining({
          error_class: 'platform_unavailable',
          consecutive_failures: FAILURE_ALERT_AFTER,
        }),
      },
    ]);
    expect((await listed(t, healthy.key, 'youtube')).health).toMatchObject({
      status: 'degraded',
      reason: 'platform_unavailable',
    });
    const before = apiCalls('youtube');
    expect(await runSyncJob(t.ctx, job(healthy.id))).toBe('deferred');
    expect(apiCalls('youtube')).toBe(before);
    await sql`DELETE FROM pgboss.job WHERE name = ${syncJob('youtube').queue}`.execute(t.db);
  });

  it('a throttled sync waits for the reset the platform gives and never counts as a failure', async () => {
    const c = await connected(t, 'twitter', 'throttled');
    // X sends its window's reset as epoch seconds (https://docs.x.com/x-api/fundamentals/rate-limits);
    // Retry-After says the same here, so either reading gives one time.
    const throttle = (seconds: number): FaultAnswer => ({
      status: 429,
      headers: {
        'retry-after': String(seconds),
        'x-rate-limit-limit': '900',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + seconds),
      },
      body: { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
    });
    await t.db
      .updateTable('platform_connections')
      .set({ next_sync_at: new Date(NOW.getTime() + 86_400_000) })
      .where('id', '=', c.id)
      .execute();
    // Every attempt of the round throttled: retried at the platform's time, never a failure.
    for (let attempt = 1; attempt <= MAX_SYNC_ATTEMPTS; attempt++) {
      await answer('twitter', [throttle(30)]);
      expect(await runSyncJob(t.ctx, job(c.id, attempt))).toBe('deferred');
      const retry = await queued(t, 'twitter', c.id);
      if (attempt < MAX_SYNC_ATTEMPTS) {
        expect(retry).toHaveLength(1);
        expect(retry[0]!.data.attempt).toBe(attempt + 1);
        const delay = retry[0]!.start_after.getTime() - Date.now();
        expect(delay).toBeGreaterThan(25_000);
        expect(delay).toBeLessThanOrEqual(31_000);
      } else expect(retry).toHaveLength(0);
      await sql`DELETE FROM pgboss.job WHERE name = ${syncJob('twitter').queue}`.execute(t.db);
    }
    expect(await row(t, c.id)).toMatchObject({
      status: 'connected',
      consecutive_failures: 0,
      last_error_class: 'rate_limited',
      health_reason: 'throttled',
    });
    expect(await events(t, c.workspace.id, 'platform.connection_failed')).toHaveLength(0);
    expect(await listed(t, c.key, 'twitter')).toMatchObject({
      status: 'connected',
      health: { status: 'degraded', reason: 'throttled' },
    });

    // A reset past the next slot (a 24-hour window): no retry this round; the slot moves to the reset.
    await answer('twitter', [throttle(2 * 86_400)]);
    expect(await runSyncJob(t.ctx, job(c.id))).toBe('deferred');
    expect(await queued(t, 'twitter', c.id)).toHaveLength(0);
    const next = (await row(t, c.id)).next_sync_at!.getTime();
    expect(Math.abs(next - (Date.now() + 2 * 86_400_000))).toBeLessThan(10_000);

    // The next success clears it.
    expect(await runSyncJob(t.ctx, job(c.id))).toBe('synced');
    expect((await listed(t, c.key, 'twitter')).health).toMatchObject({ status: 'healthy', reason: null });
  });

  it("a spent app-wide quota defers the connection and the platform's other syncs until its reset, without failures", async () => {
    // Its own service: the quota hold is per instance.
    const s = await startTestService({}, ENV());
    try {
      s.setNow(NOW);
      const a = await connected(s, 'youtube', 'quotaa');
      const b = await connected(s, 'youtube', 'quotab');
      const slot = new Date(NOW.getTime() + 60_000);
      await s.db
        .updateTable('platform_connections')
        .set({ next_sync_at: slot })
        .where('id', '=', a.id)
        .execute();
      // YouTube's quota error (https://developers.google.com/youtube/v3/docs/errors, quotaExceeded): the
      // daily quota of the Cloud project resets at midnight Pacific Time
      // (https://developers.google.com/youtube/data/determine_quota_cost).
      await answer('youtube', [
        {
          status: 403,
          body: {
            error: {
              code: 403,
              message: 'The request cannot be completed because you have exceeded your quota.',
              errors: [
                {
                  message: 'The request cannot be completed because you have exceeded your quota.',
                  domain: 'youtube.quota',
                  reason: 'quotaExceeded',
                },
              ],
            },
          },
        },
      ]);
      const reset = nextPacificMidnight(Date.now());
      expect(await runSyncJob(s.ctx, job(a.id))).toBe('deferred');
      const held = await row(s, a.id);
      expect(held).toMatchObject({
        status: 'connected',
        consecutive_failures: 0,
        health_reason: 'quota_exhausted',
      });
      // Not before the reset, which lies past the next slot.
      expect(held.next_sync_at!.getTime()).toBe(reset.getTime());
      expect(await queued(s, 'youtube', a.id)).toHaveLength(0);
      expect((await listed(s, a.key, 'youtube')).health).toMatchObject({
        status: 'degraded',
        reason: 'quota_exhausted',
      });

      // The other connection's sync on this instance waits for the reset without calling YouTube.
      const calls = apiCalls('youtube');
      expect(await runSyncJob(s.ctx, job(b.id))).toBe('deferred');
      expect(apiCalls('youtube')).toBe(calls);
      const waiting = await queued(s, 'youtube', b.id);
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!.data.attempt).toBe(1);
      expect(Math.abs(waiting[0]!.start_after.getTime() - reset.getTime())).toBeLessThan(2_000);
      expect(await row(s, b.id)).toMatchObject({ consecutive_failures: 0, last_error_class: null });
    } finally {
      await s.close();
    }
  });
});

describe('GET /v1/platforms/{platform}', () => {
  it('shows scopes not granted, and answers a platform never connected or unknown with the right problem', async () => {
    const c = await connected(t, 'youtube', 'scopes');
    // Google lets the user untick a scope on its consent screen; the connect flow stores what was granted.
    await t.db
      .updateTable('platform_connections')
      .set({ granted_scopes: ['https://www.googleapis.com/auth/youtube.readonly'] })
      .where('id', '=', c.id)
      .execute();
    const one = await listed(t, c.key, 'youtube');
    expect(one.health).toMatchObject({
      status: 'degraded',
      reason: 'scope_not_granted',
      missing_scope: ANALYTICS_SCOPE,
      granted_scopes: ['https://www.googleapis.com/auth/youtube.readonly'],
      required_scopes: [
        'https://www.googleapis.com/auth/youtube.readonly',
        ANALYTICS_SCOPE,
        'https://www.googleapis.com/auth/youtube.force-ssl',
      ],
    });
    const all = await t.request({ method: 'GET', url: '/v1/platforms', key: c.key });
    expect(all.json().platforms).toEqual([one]);

    const never = await t.request({ method: 'GET', url: '/v1/platforms/tiktok', key: c.key });
    expect([never.statusCode, never.json().title]).toEqual([404, 'Platform Not Connected']);
    const unknown = await t.request({ method: 'GET', url: '/v1/platforms/myspace', key: c.key });
    expect([unknown.statusCode, unknown.json().title]).toEqual([422, 'Invalid Platform']);
    const other = await workspaceWithKey(t.db, { plan: 'agency' });
    const foreign = await t.request({
      method: 'GET',
      url: `/v1/platforms/youtube?workspace_id=${c.workspace.id}`,
      key: other.key,
    });
    expect(foreign.statusCode).toBe(404);

    // Disconnected: still shown, without health.
    const gone = await t.request({ method: 'DELETE', url: '/v1/platforms/youtube', key: c.key });
    expect(gone.statusCode, gone.body).toBeLessThan(300);
    expect(await listed(t, c.key, 'youtube')).toMatchObject({ status: 'disconnected', health: null });
  });
});

describe('tokens that cannot be refreshed', () => {
  it(`warn once, ${TOKEN_WARNING_DAYS} days before they lapse, from the sync tick`, async () => {
    // Meta's long-lived token: about 60 days, no refresh token
    // (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived).
    const c = await connected(t, 'instagram', 'expiring');
    const { token_expires_at: expires, refresh_token } = await t.db
      .selectFrom('platform_connections')
      .select(['token_expires_at', 'refresh_token'])
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(refresh_token).toBeNull();
    expect((await listed(t, c.key, 'instagram')).health.reauth_by).toBe(expires!.toISOString());

    const warnedFor = () => events(t, c.workspace.id, 'platform.token_expiring');
    t.setNow(new Date(expires!.getTime() - (TOKEN_WARNING_DAYS + 1) * 86_400_000));
    try {
      await warnExpiringTokens(t.ctx);
      expect(await warnedFor()).toHaveLength(0);
      t.setNow(new Date(expires!.getTime() - TOKEN_WARNING_DAYS * 86_400_000 + 60_000));
      await warnExpiringTokens(t.ctx);
      await warnExpiringTokens(t.ctx);
    } finally {
      t.setNow(NOW);
    }
    expect((await warnedFor()).map((e) => e.data)).toEqual([
      expect.objectContaining({
        platform: 'instagram',
        expires_at: expires!.toISOString(),
        reconnect: 'POST /v1/platforms/instagram/connect',
      }),
    ]);
  });
});
