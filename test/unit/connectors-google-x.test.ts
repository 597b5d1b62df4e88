import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, CONNECTORS, ConnectorError } from '../../src/ingest/connectors/index.ts';
import { nextPacificMidnight } from '../../src/ingest/connectors/youtube.ts';
import { END_TIME_MARGIN_MS } from '../../src/ingest/connectors/twitter.ts';
import { fixtureServer, loadFixture, type Route } from './connectors-fixtures/server.ts';
import { addDays, utcDay } from '../../src/core/days.ts';
import type { Platform } from '../../src/core/catalog.ts';

/**
 * YouTube and X against exchanges copied from Google's and X's documentation, error answers included:
 * each platform's own error signal is read as what it means (ConnectorError.kind), and the connectors
 * send exactly the documented requests.
 */
const range = { since: '2025-03-01', until: '2025-03-03' };
const CHANNEL = 'UC_x5XG1OV2P6uZZ5FSM9Ttw';
const X_USER = '2244994945';
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function run(
  platform: Platform,
  routes: Route[],
  account: { handle: string; accountId?: string },
  r = range,
) {
  const server = await fixtureServer(routes);
  close = server.close;
  const connector = CONNECTORS[platform];
  const api = new ApiClient({
    platform,
    baseUrls:
      platform === 'youtube'
        ? { data: `${server.origin}/youtube/v3`, analytics: `${server.origin}/v2` }
        : { api: `${server.origin}/2` },
    headers: connector.authHeaders('tok_123'),
    timeoutMs: 5000,
    maxBytes: 1_000_000,
    fetch,
    readFault: (a) => connector.readFault!(a),
  });
  const result = await connector.fetchSnapshots(api, account, r);
  return { ...result, seen: server.seen };
}

/** The documented error answer `name`, put in front of the fixture's routes (the first match answers). */
function withError(platform: 'youtube' | 'twitter', name: string): Route[] {
  const errors = loadFixture(`${platform}-errors`) as Array<Route & { case: string }>;
  const route = errors.find((e) => e.case === name);
  if (!route) throw new Error(`no ${name} in ${platform}-errors.json`);
  return [route, ...loadFixture(platform)];
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ConnectorError,
  );

describe('YouTube errors as Google reports them', () => {
  const youtube = (routes: Route[]) =>
    run('youtube', routes, { handle: 'googledevelopers', accountId: CHANNEL });

  it('403 quotaExceeded: the daily quota is spent until midnight Pacific Time', async () => {
    const before = Date.now();
    const error = await failure(youtube(withError('youtube', 'quotaExceeded')));
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'quota_exhausted', status: 403 });
    expect(error!.retryAt!.getTime()).toBe(nextPacificMidnight(before).getTime());
  });

  it('403 rateLimitExceeded is a throttle; 401 authError a refused token; 503 unavailable', async () => {
    expect(await failure(youtube(withError('youtube', 'rateLimitExceeded')))).toMatchObject({
      kind: 'throttled',
      status: 403,
    });
    await close?.();
    expect(await failure(youtube(withError('youtube', 'authError')))).toMatchObject({
      kind: 'token_refused',
      status: 401,
    });
    await close?.();
    expect(await failure(youtube(withError('youtube', 'backendError')))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
  });

  it('a channel that is gone: 404 channelNotFound, or an empty list for its id', async () => {
    expect(await failure(youtube(withError('youtube', 'channelNotFound')))).toMatchObject({
      kind: 'account_gone',
      status: 404,
    });
    await close?.();
    const empty = await failure(
      run('youtube', loadFixture('youtube'), { handle: 'old', accountId: 'UCdeleted0000000000000000' }),
    );
    expect(empty).toMatchObject({ kind: 'account_gone' });
    expect(empty!.message).toContain('UCdeleted0000000000000000 no longer exists');
  });

  it('comment threads refused for a missing scope: the rest of the sync is kept and the failure recorded', async () => {
    const r = await youtube(withError('youtube', 'insufficientPermissions'));
    expect(r.snapshots.map((s) => s.impressions)).toEqual([5000, 6200, 4800]);
    expect(r.snapshots.every((s) => s.sentimentPositive + s.sentimentNegative === 0)).toBe(true);
    expect(r.failures).toEqual([
      {
        call: 'GET /commentThreads',
        metric: 'comments',
        kind: 'permission_missing',
        message: expect.stringContaining('insufficient authentication scopes'),
        scope: 'https://www.googleapis.com/auth/youtube.force-ssl',
      },
    ]);
  });

  it('a connection without a stored id is found by handle once, and its channel id reported to keep', async () => {
    const r = await run('youtube', loadFixture('youtube'), { handle: 'googledevelopers' });
    expect(r.seen[0]!.query).toEqual({
      part: 'snippet,statistics,contentDetails',
      forHandle: '@googledevelopers',
    });
    expect(r.accountId).toBe(CHANNEL);
  });

  it('the quota resets at Pacific midnight, 08:00 UTC in winter and 07:00 UTC in summer, across both changes', () => {
    const at = (iso: string) => nextPacificMidnight(Date.parse(iso)).toISOString();
    // Winter (PST, UTC−8) and summer (PDT, UTC−7).
    expect(at('2026-01-15T20:00:00Z')).toBe('2026-01-16T08:00:00.000Z');
    expect(at('2026-07-15T20:00:00Z')).toBe('2026-07-16T07:00:00.000Z');
    // 2026-03-08, 02:00 PST becomes 03:00 PDT: the day before ends at 08:00 UTC, the day itself at 07:00.
    expect(at('2026-03-07T12:00:00Z')).toBe('2026-03-08T08:00:00.000Z');
    expect(at('2026-03-08T12:00:00Z')).toBe('2026-03-09T07:00:00.000Z');
    // 2026-11-01, 02:00 PDT becomes 01:00 PST.
    expect(at('2026-11-01T06:30:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(at('2026-11-01T07:00:00Z')).toBe('2026-11-02T08:00:00.000Z');
    expect(at('2026-11-01T12:00:00Z')).toBe('2026-11-02T08:00:00.000Z');
  });
});

describe('X errors as X reports them', () => {
  const x = (routes: Route[]) => run('twitter', routes, { handle: 'XDevelopers', accountId: X_USER });

  it('429: retried at x-rate-limit-reset (epoch seconds), not on a Retry-After X never sends', async () => {
    const error = await failure(x(withError('twitter', 'rateLimited')));
    expect(error).toMatchObject({ kind: 'throttled', status: 429 });
    expect(error!.retryAt!.toISOString()).toBe(new Date(1705420800 * 1000).toISOString());
  });

  it('the usage cap is a spent quota; 401 a refused token; 403 client-forbidden a missing permission; 503 unavailable', async () => {
    expect(await failure(x(withError('twitter', 'usageCapped')))).toMatchObject({
      kind: 'quota_exhausted',
      status: 429,
    });
    await close?.();
    expect(await failure(x(withError('twitter', 'unauthorized')))).toMatchObject({
      kind: 'token_refused',
      status: 401,
    });
    await close?.();
    const forbidden = await failure(x(withError('twitter', 'clientNotEnrolled')));
    expect(forbidden).toMatchObject({ kind: 'permission_missing', status: 403 });
    expect(forbidden!.message).toContain('attached to a Project');
    await close?.();
    expect(await failure(x(withError('twitter', 'serviceUnavailable')))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
  });

  it('a suspended or deleted account answers 200 with only errors[]: the account is gone', async () => {
    const error = await failure(x(withError('twitter', 'suspended')));
    expect(error).toMatchObject({ kind: 'account_gone', status: 200 });
    expect(error!.message).toContain('User has been suspended');
    await close?.();
    expect(await failure(run('twitter', loadFixture('twitter'), { handle: 'nobody' }))).toMatchObject({
      kind: 'account_gone',
    });
  });

  it('a connection without a stored id is found by username once, and its user id reported to keep', async () => {
    const r = await run('twitter', loadFixture('twitter'), { handle: 'XDevelopers' });
    expect(r.seen[0]!.path).toBe('/2/users/by/username/XDevelopers');
    expect(r.accountId).toBe(X_USER);
  });

  it('a range reaching today asks timelines to end at least 30 s before now', async () => {
    const today = utcDay(new Date());
    const user = loadFixture('twitter').find((r) => r.path === `/2/users/${X_USER}`)!;
    const timeline = (path: string, exclude: boolean): Route => ({
      method: 'GET',
      path,
      query: {
        start_time: '*',
        end_time: '*',
        max_results: '100',
        'tweet.fields': 'created_at,public_metrics',
        ...(exclude ? { exclude: 'retweets,replies' } : {}),
      },
      source: 'https://docs.x.com/x-api/users/get-posts',
      body: { meta: { result_count: 0 } },
    });
    const before = Date.now();
    const r = await run(
      'twitter',
      [user, timeline(`/2/users/${X_USER}/tweets`, true), timeline(`/2/users/${X_USER}/mentions`, false)],
      { handle: 'XDevelopers', accountId: X_USER },
      { since: addDays(today, -2), until: today },
    );
    const tweets = r.seen.find((s) => s.path.endsWith('/tweets'))!;
    expect(tweets.query.start_time).toBe(`${addDays(today, -2)}T00:00:00Z`);
    expect(tweets.query.end_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const end = Date.parse(tweets.query.end_time!);
    expect(end).toBeLessThanOrEqual(Date.now() - END_TIME_MARGIN_MS);
    expect(end).toBeGreaterThan(before - END_TIME_MARGIN_MS - 2000);
    expect(r.seen.find((s) => s.path.endsWith('/mentions'))!.query.end_time).toBe(tweets.query.end_time);
  });
});
