import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addDays, DAY_MS, isCalendarDay, utcDay } from '../core/days.ts';
import { PLATFORMS, type Platform } from '../core/catalog.ts';
import { SIMULATOR_CLIENT_SECRET, simulatorClientId } from './client.ts';
import { HISTORY_START, SyntheticAccount, type DayMetrics } from './accounts.ts';

/**
 * The platform simulator: on loopback, an OAuth 2.0 authorization server per platform (authorization
 * code with PKCE S256, refresh with rotation, RFC 7009 revocation) and the five platforms' APIs in the
 * shapes src/ingest/connectors/ read, for deterministic synthetic accounts (accounts.ts). Its clock
 * reveals one more day of data per simulated day; `speed` simulated seconds pass per real second.
 * Faults are injected per platform through the control API under /_sim/. It speaks the real platforms'
 * OAuth quirks (TikTok's client_key; Meta's short-lived code token, fb_exchange_token grant, /me as the
 * person and /me/accounts for Pages), so the service's handling of them is tested end to end.
 *
 * Layout: /<platform>/oauth/{authorize,token,revoke}, /<platform>/<api>/... (api names as in each
 * connector's defaultBaseUrls), /_sim/{state,clock,faults,tokens}.
 */

export interface Faults {
  /** The next n API requests answer 429 with Retry-After. */
  burst429: number;
  retryAfterSeconds: number;
  /** The next n API requests answer 503. */
  errors5xx: number;
  /** Every API answer waits this long first. */
  slowMs: number;
  /** Lifetime of access tokens issued from now on. */
  tokenTtlSeconds: number;
  /** Authorisation requests are answered error=access_denied (the user refuses consent). */
  denyConsent: boolean;
}

const DEFAULT_FAULTS: Faults = {
  burst429: 0,
  retryAfterSeconds: 1,
  errors5xx: 0,
  slowMs: 0,
  tokenTtlSeconds: 3600,
  denyConsent: false,
};

interface Grant {
  platform: Platform;
  handle: string;
  /** The scopes granted (as the platform joins them). */
  scope: string;
  /** Requested and unticked at the consent screen (SimulatedUser.declinedScopes). */
  declined?: string[];
}

/**
 * What a simulated person does at the consent screen: the accounts their login manages (Pages on
 * Meta, with an Instagram business account each on Instagram; channels on YouTube; default: one,
 * named like the login) and the permissions they untick.
 */
export interface SimulatedUser {
  accounts?: string[];
  declinedScopes?: string[];
}

interface AccessToken extends Grant {
  expiresAt: number;
  refreshToken: string | null;
}

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** Simulated seconds per real second (1 = real time; 0 = the clock moves only when told). */
  speed?: number;
  /** The simulator's today when it starts (default: the real today). */
  startDay?: string;
  /**
   * Never run ahead of the real clock: a simulator started in the past at a speed above 1 catches up
   * with the real time and then follows it (`npm run demo`), instead of serving days the service,
   * whose today is the real one, cannot store yet.
   */
  capAtNow?: boolean;
  /** Real clock (tests). */
  now?: () => number;
}

export interface Simulator {
  url: string;
  server: Server;
  today(): string;
  /** Moves the simulated clock forward by whole days. */
  advanceDays(days: number): void;
  setFaults(platform: Platform, faults: Partial<Faults>): void;
  /** Makes every refresh token of the platform (or of one handle) invalid (invalid_grant). */
  revokeRefreshTokens(platform: Platform, handle?: string): number;
  /**
   * Lets every access token of the platform (or of one handle) lapse now, as a Meta long-lived token
   * does after about 60 days: API requests with it are refused (401, Graph code 190).
   */
  expireAccessTokens(platform: Platform, handle?: string): number;
  /** Sets what a login manages and declines at consent (the default: one account, everything granted). */
  setUser(platform: Platform, login: string, user: SimulatedUser): void;
  /** Issues tokens directly, as if a user had consented (bench and tests). */
  issueTokens(platform: Platform, handle: string): TokenAnswer;
  /** API requests answered per platform, by status. */
  stats(): Record<Platform, Record<string, number>>;
  /** Every access token, refresh token and authorization code ever issued (for leak scans in tests). */
  issuedTokens(): string[];
  close(): Promise<void>;
}

interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope?: string;
  open_id: string;
}

const SCOPES: Record<Platform, string> = {
  instagram: 'instagram_basic instagram_manage_insights pages_show_list business_management',
  facebook: 'pages_show_list pages_read_engagement read_insights',
  tiktok: 'user.info.basic user.info.profile user.info.stats video.list',
  youtube:
    'https://www.googleapis.com/auth/youtube.readonly https://www.googleapis.com/auth/yt-analytics.readonly',
  twitter: 'tweet.read users.read offline.access',
};

class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

const oauthError = (status: number, error: string, description: string) =>
  new HttpError(status, { error, error_description: description });

function b64url(buffer: Buffer): string {
  return buffer.toString('base64url');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new HttpError(413, { error: 'too large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** TikTok names the client id `client_key` (authorize URL, token and revoke requests). */
const clientIdParam = (platform: Platform) => (platform === 'tiktok' ? 'client_key' : 'client_id');
const isMeta = (platform: Platform) => platform === 'instagram' || platform === 'facebook';
/** Meta's long-lived user tokens last about 60 days. */
const META_LONG_LIVED_SECONDS = 60 * 86_400;

const graphTime = (iso: string) => iso.replace(/\.\d{3}Z$|Z$/, '+0000');
const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const speed = options.speed ?? 1;
  const startedAt = now();
  const startDay = options.startDay ?? utcDay(new Date(startedAt));
  if (!isCalendarDay(startDay)) throw new Error(`startDay must be YYYY-MM-DD, got "${startDay}"`);
  let advancedDays = 0;
  const faults = new Map<Platform, Faults>(PLATFORMS.map((p) => [p, { ...DEFAULT_FAULTS }]));
  const codes = new Map<
    string,
    Grant & { clientId: string; redirectUri: string; challenge: string; expiresAt: number }
  >();
  const accessTokens = new Map<string, AccessToken>();
  const everIssued: string[] = [];
  const refreshTokens = new Map<string, Grant>();
  const users = new Map<string, SimulatedUser>();
  const userOf = (platform: Platform, login: string): SimulatedUser =>
    users.get(`${platform}:${login}`) ?? {};
  /** The accounts a login manages: its own name unless set otherwise. */
  const accountsOf = (platform: Platform, login: string): string[] =>
    userOf(platform, login).accounts ?? [login];
  const counts = Object.fromEntries(PLATFORMS.map((p) => [p, {} as Record<string, number>])) as Record<
    Platform,
    Record<string, number>
  >;

  /** Simulated instant: start day's midnight plus elapsed time at `speed`, plus manual advances. */
  // A real-time simulator without a start day starts at the real time of day; others at midnight.
  const origin0 =
    Date.parse(`${startDay}T00:00:00Z`) + (speed === 1 && !options.startDay ? startedAt % DAY_MS : 0);
  const simNow = () => {
    const t = origin0 + (now() - startedAt) * speed + advancedDays * DAY_MS;
    return options.capAtNow ? Math.min(t, now()) : t;
  };
  const today = () => utcDay(new Date(simNow()));
  const account = (platform: Platform, handle: string) => new SyntheticAccount(platform, handle);

  /**
   * A token pair for a grant. Meta's tokens come without a refresh token (`refresh: false`): a
   * short-lived one from the code, then a long-lived one (`ttlSeconds`) from fb_exchange_token.
   */
  function issue(
    grant: Grant,
    options: { rotateFrom?: string; refresh?: boolean; ttlSeconds?: number } = {},
  ): TokenAnswer {
    if (options.rotateFrom) refreshTokens.delete(options.rotateFrom);
    const access = `sim_at_${b64url(randomBytes(24))}`;
    const refresh = options.refresh === false ? null : `sim_rt_${b64url(randomBytes(24))}`;
    const ttl = options.ttlSeconds ?? faults.get(grant.platform)!.tokenTtlSeconds;
    accessTokens.set(access, { ...grant, expiresAt: now() + ttl * 1000, refreshToken: refresh });
    everIssued.push(access);
    if (refresh) {
      everIssued.push(refresh);
      refreshTokens.set(refresh, grant);
    }
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ttl,
      ...(refresh ? { refresh_token: refresh } : {}),
      // Meta's token answer has no scope: the granted permissions are read from /me/permissions
      // (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow).
      ...(isMeta(grant.platform) ? {} : { scope: grant.scope }),
      open_id: grant.handle,
    } as TokenAnswer;
  }

  /** A Facebook Page's token (from /me/accounts): no expiry, no refresh. */
  function pageToken(grant: Grant): string {
    const access = `sim_pt_${b64url(randomBytes(24))}`;
    accessTokens.set(access, { ...grant, expiresAt: Number.POSITIVE_INFINITY, refreshToken: null });
    everIssued.push(access);
    return access;
  }

  function checkClient(platform: Platform, req: IncomingMessage, form: URLSearchParams): void {
    let id = form.get(clientIdParam(platform));
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [u, p] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      id = decodeURIComponent(u ?? '');
      secret = decodeURIComponent(p ?? '');
    }
    if (id !== simulatorClientId(platform) || secret !== SIMULATOR_CLIENT_SECRET)
      throw oauthError(401, 'invalid_client', 'unknown client or wrong secret');
  }

  function authorize(platform: Platform, url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (q.get(clientIdParam(platform)) !== simulatorClientId(platform))
      throw oauthError(400, 'invalid_client', `unknown ${clientIdParam(platform)}`);
    if (!redirectUri || !/^https?:\/\//.test(redirectUri))
      throw oauthError(400, 'invalid_request', 'redirect_uri is required');
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    const fail = (error: string, description: string) => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
      res.writeHead(302, { location: back.href }).end();
    };
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'use code');
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
      return fail('invalid_request', 'PKCE with S256 is required');
    if (faults.get(platform)!.denyConsent) return fail('access_denied', 'the user denied consent');
    const handle = (q.get('login_hint') ?? `sim${platform}`).replace(/^@/, '').toLowerCase();
    if (!/^[a-z0-9_.-]{1,60}$/.test(handle)) return fail('invalid_request', 'login_hint is not a handle');
    const code = `sim_code_${b64url(randomBytes(18))}`;
    everIssued.push(code);
    // The person may untick permissions at the consent screen (Meta, Google, TikTok allow it).
    const requested = q.get('scope') ?? SCOPES[platform];
    const declined = (userOf(platform, handle).declinedScopes ?? []).filter((d) =>
      requested.split(/[\s,]+/).includes(d),
    );
    codes.set(code, {
      platform,
      handle,
      scope: requested
        .split(/[\s,]+/)
        .filter((x) => x && !declined.includes(x))
        .join(requested.includes(',') ? ',' : ' '),
      declined,
      clientId: q.get(clientIdParam(platform))!,
      redirectUri,
      challenge: q.get('code_challenge')!,
      expiresAt: now() + 60_000,
    });
    back.searchParams.set('code', code);
    res.writeHead(302, { location: back.href }).end();
  }

  function token(platform: Platform, req: IncomingMessage, form: URLSearchParams): TokenAnswer {
    checkClient(platform, req, form);
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = form.get('code') ?? '';
      const grant = codes.get(code);
      codes.delete(code); // single use, whatever happens next
      if (!grant || grant.platform !== platform || grant.expiresAt < now())
        throw oauthError(400, 'invalid_grant', 'unknown, used or expired code');
      if (form.get('redirect_uri') !== grant.redirectUri)
        throw oauthError(400, 'invalid_grant', 'redirect_uri does not match');
      const verifier = form.get('code_verifier') ?? '';
      const expected = Buffer.from(grant.challenge);
      const actual = Buffer.from(b64url(createHash('sha256').update(verifier).digest()));
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual))
        throw oauthError(400, 'invalid_grant', 'code_verifier does not match the challenge');
      // Meta answers a short-lived user token and no refresh token.
      return issue(
        { platform, handle: grant.handle, scope: grant.scope, declined: grant.declined ?? [] },
        { refresh: !isMeta(platform) },
      );
    }
    if (grantType === 'fb_exchange_token' && isMeta(platform)) {
      const short = accessTokens.get(form.get('fb_exchange_token') ?? '');
      if (!short || short.platform !== platform || short.expiresAt <= now())
        throw oauthError(400, 'invalid_grant', 'fb_exchange_token is invalid or expired');
      return issue(
        { platform, handle: short.handle, scope: short.scope, declined: short.declined ?? [] },
        { refresh: false, ttlSeconds: META_LONG_LIVED_SECONDS },
      );
    }
    if (grantType === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? '';
      const grant = refreshTokens.get(refresh);
      if (!grant || grant.platform !== platform)
        throw oauthError(400, 'invalid_grant', 'the refresh token is invalid or revoked');
      return issue(grant, { rotateFrom: refresh });
    }
    throw oauthError(400, 'unsupported_grant_type', `grant_type ${grantType}`);
  }

  function revoke(platform: Platform, req: IncomingMessage, form: URLSearchParams): void {
    checkClient(platform, req, form);
    const value = form.get('token') ?? '';
    const access = accessTokens.get(value);
    if (access && access.platform === platform) {
      accessTokens.delete(value);
      if (access.refreshToken) refreshTokens.delete(access.refreshToken);
    }
    if (refreshTokens.get(value)?.platform === platform) {
      refreshTokens.delete(value);
      for (const [k, t] of accessTokens) if (t.refreshToken === value) accessTokens.delete(k);
    }
  }

  /** The bearer of an API request (TikTok sends it as `access-token`). */
  function authenticate(platform: Platform, req: IncomingMessage): AccessToken {
    const raw =
      platform === 'tiktok'
        ? String(req.headers['access-token'] ?? '')
        : (/^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
    const t = accessTokens.get(raw);
    const unauthorized = (why: string) =>
      platform === 'tiktok'
        ? new HttpError(401, { code: 40105, message: why, request_id: 'sim' })
        : platform === 'twitter'
          ? new HttpError(401, { title: 'Unauthorized', detail: why, status: 401 })
          : new HttpError(401, { error: { message: why, code: 190, type: 'OAuthException' } });
    if (!t || t.platform !== platform) throw unauthorized('Invalid OAuth access token');
    if (t.expiresAt <= now())
      throw unauthorized(
        isMeta(platform)
          ? 'Error validating access token: Session has expired'
          : 'The access token has expired',
      );
    return t;
  }

  function api(platform: Platform, path: string, url: URL, origin: string, me: AccessToken): unknown {
    const q = url.searchParams;
    const day = today();
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const fromUnix = (name: string, fallback: string) => {
      const v = Number(q.get(name));
      return Number.isFinite(v) && q.get(name) ? utcDay(new Date(v * 1000)) : fallback;
    };
    const notFound = (what: string) =>
      new HttpError(404, { error: { message: `${what} not found`, code: 100 } });
    const byId = (id: string, prefix: string) => {
      if (!id.startsWith(prefix)) throw notFound(id);
      return account(platform, id.slice(prefix.length));
    };

    if (platform === 'instagram' || platform === 'facebook') {
      const [apiName, node, edge] = segments;
      if (apiName !== 'graph' || !node) throw notFound(path);
      const prefix = platform === 'instagram' ? 'ig_' : 'page_';
      // As Meta: /me is the person; the Page (and the Instagram business account linked to it) is
      // listed by /me/accounts, each Page with its own token.
      if (node === 'me' && !edge) return { id: `user_${me.handle}`, name: `${me.handle} (simulated person)` };
      if (node === 'me' && edge === 'permissions') {
        // https://developers.facebook.com/docs/graph-api/reference/user/permissions/
        return {
          data: [
            ...me.scope
              .split(/[\s,]+/)
              .filter(Boolean)
              .map((permission) => ({ permission, status: 'granted' })),
            ...(me.declined ?? []).map((permission) => ({ permission, status: 'declined' })),
          ],
        };
      }
      if (node === 'me' && edge === 'accounts') {
        // Every Page the person manages, 25 a page by default (at most 100), cursor-paginated with an
        // absolute paging.next (https://developers.facebook.com/docs/graph-api/results).
        const all = accountsOf(platform, me.handle);
        const limit = Math.min(100, Math.max(1, Number(q.get('limit')) || 25));
        const offset = Math.max(0, Number(q.get('after')) || 0);
        const next = new URL(`${origin}${path}`);
        for (const [k, v] of q) next.searchParams.set(k, v);
        next.searchParams.set('after', String(offset + limit));
        return {
          data: all.slice(offset, offset + limit).map((handle) => {
            const a = account(platform, handle);
            return {
              id: `page_${a.handle}`,
              name: `${a.handle} (simulated)`,
              username: a.handle,
              category: 'Brand',
              fan_count: a.followersOn(day),
              followers_count: a.followersOn(day),
              access_token: pageToken({ platform, handle: a.handle, scope: me.scope }),
              ...(platform === 'instagram'
                ? {
                    instagram_business_account: {
                      id: `ig_${a.handle}`,
                      username: a.handle,
                      followers_count: a.followersOn(day),
                    },
                  }
                : {}),
            };
          }),
          paging: {
            cursors: { before: String(offset), after: String(offset + limit) },
            ...(offset + limit < all.length ? { next: next.href } : {}),
          },
        };
      }
      if (!edge) {
        // As the Graph API: an Instagram account is addressed by its id only (no lookup by
        // username); a Page also by its username.
        if (platform === 'instagram' && !node.startsWith(prefix)) {
          throw new HttpError(400, {
            error: {
              message: `Unsupported get request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
              type: 'GraphMethodException',
              code: 100,
              error_subcode: 33,
            },
          });
        }
        const a = node.startsWith(prefix) ? byId(node, prefix) : account(platform, node);
        return platform === 'instagram'
          ? {
              id: `${prefix}${a.handle}`,
              username: a.handle,
              name: `${a.handle} (simulated)`,
              biography: 'A simulated brand account',
              website: `https://${a.handle}.example`,
              profile_picture_url: `https://cdn.example/${a.handle}.jpg`,
              followers_count: a.followersOn(day),
              media_count: 100,
            }
          : {
              id: `${prefix}${a.handle}`,
              username: a.handle,
              name: `${a.handle} (simulated)`,
              about: 'A simulated brand page',
              website: `https://${a.handle}.example`,
              picture: { data: { url: `https://cdn.example/${a.handle}.jpg` } },
              followers_count: a.followersOn(day),
              fan_count: a.followersOn(day),
            };
      }
      const a = byId(node, prefix);
      const since = fromUnix('since', addDays(day, -29));
      const until = addDays(fromUnix('until', addDays(day, 1)), -1);
      const days = a.range(since, until, day);
      const series = (name: string, pick: (m: DayMetrics) => number) => ({
        name,
        period: 'day',
        values: days.map((m) => ({ value: pick(m), end_time: `${addDays(m.day, 1)}T08:00:00+0000` })),
        id: `${node}/insights/${name}/day`,
      });
      const net = (m: DayMetrics) => m.followers - a.followersOn(addDays(m.day, -1));
      if (edge === 'insights') {
        return platform === 'instagram'
          ? {
              data: [
                series('impressions', (m) => m.impressions),
                series('follower_count', (m) => Math.max(0, net(m))),
              ],
            }
          : {
              data: [
                series('page_impressions', (m) => m.impressions),
                series('page_daily_follows_unique', (m) => Math.max(0, net(m))),
                series('page_daily_unfollows_unique', (m) => Math.max(0, -net(m))),
              ],
            };
      }
      if (edge === (platform === 'instagram' ? 'media' : 'published_posts')) {
        // Each post carries its lifetime totals so far, as the Graph API reports them: its share of
        // its day's engagement and of the days up to the next post (SyntheticAccount.postTotals).
        const items = days
          .flatMap((m) => {
            const t = a.postTotals(m.day, day);
            return t ? m.posts.map((p, i) => ({ p, m, t, first: i === 0 })) : [];
          })
          .reverse();
        const limit = Math.min(100, Math.max(1, Number(q.get('limit')) || 25));
        const offset = Math.max(0, Number(q.get('after')) || 0);
        const page = items.slice(offset, offset + limit);
        const next = new URL(`${origin}${path}`);
        for (const [k, v] of q) next.searchParams.set(k, v);
        next.searchParams.set('after', String(offset + limit));
        const data = page.map(({ p, m, t, first }) => {
          const likes = Math.round(t.likes / m.posts.length);
          const comments = Math.round(t.comments / m.posts.length);
          // The first post of the day holds the comment texts (at most the page the connectors ask for).
          const take = first ? t.commentTexts.slice(0, 25) : [];
          return platform === 'instagram'
            ? {
                id: p.id,
                timestamp: graphTime(p.at),
                like_count: likes,
                comments_count: comments,
                comments: { data: take.map((c) => ({ text: c.text, timestamp: graphTime(c.at) })) },
              }
            : {
                id: `${node}_${p.id}`,
                created_time: graphTime(p.at),
                shares: { count: first ? t.shares : 0 },
                reactions: { data: [], summary: { total_count: likes } },
                comments: {
                  data: take.map((c) => ({ message: c.text, created_time: graphTime(c.at) })),
                  summary: { total_count: comments },
                },
              };
        });
        return { data, paging: offset + limit < items.length ? { next: next.href } : {} };
      }
      throw notFound(path);
    }

    if (platform === 'tiktok') {
      const handle = q.get('business_id') ?? me.handle;
      const a = account(platform, handle);
      const ok = (data: unknown) => ({ code: 0, message: 'OK', request_id: `sim${Date.now()}`, data });
      if (path === '/business/business/get/') {
        const since = q.get('start_date') ?? addDays(day, -6);
        const until = q.get('end_date') ?? day;
        if (!isCalendarDay(since) || !isCalendarDay(until))
          return { code: 40002, message: 'start_date and end_date must be YYYY-MM-DD', request_id: 'sim' };
        return ok({
          username: a.handle,
          display_name: `${a.handle} (simulated)`,
          profile_image: `https://cdn.example/${a.handle}.jpeg`,
          bio_description: 'A simulated brand account',
          followers_count: a.followersOn(day),
          metrics: a.range(since, until, day).map((m) => ({
            date: m.day,
            followers_count: m.followers,
            video_views: m.impressions,
            likes: m.likes,
            comments: m.comments,
            shares: m.shares,
          })),
        });
      }
      if (path === '/business/business/video/list/') {
        const cursor = Number(q.get('cursor')) || Date.parse(`${addDays(day, 1)}T00:00:00Z`);
        const max = Math.min(20, Math.max(1, Number(q.get('max_count')) || 20));
        const videos: Array<{ item_id: string; create_time: number }> = [];
        let d = utcDay(new Date(cursor - 1));
        for (; videos.length < max && d >= HISTORY_START; d = addDays(d, -1)) {
          for (const p of [...a.metrics(d).posts].reverse())
            if (Date.parse(p.at) < cursor && videos.length < max)
              videos.push({ item_id: p.id, create_time: unixSeconds(p.at) });
        }
        const last = videos.at(-1);
        return ok({
          videos,
          cursor: last ? last.create_time * 1000 : cursor,
          has_more: d >= HISTORY_START && videos.length === max,
        });
      }
      throw new HttpError(404, { code: 40404, message: `no such endpoint ${path}`, request_id: 'sim' });
    }

    if (platform === 'youtube') {
      const channelOf = (a: SyntheticAccount) => ({
        kind: 'youtube#channel',
        id: `UC${a.handle}`,
        snippet: {
          title: `${a.handle} (simulated)`,
          description: 'A simulated channel',
          customUrl: `@${a.handle}`,
          thumbnails: { default: { url: `https://yt.example/${a.handle}.jpg` } },
        },
        statistics: {
          viewCount: String(a.followersOn(day) * 40),
          subscriberCount: String(a.followersOn(day)),
          hiddenSubscriberCount: false,
          videoCount: '120',
        },
        contentDetails: { relatedPlaylists: { uploads: `UU${a.handle}` } },
      });
      if (path === '/data/channels') {
        // mine=true: the channels of the signed-in account, maxResults a page (default 5, at most 50),
        // nextPageToken while more remain (https://developers.google.com/youtube/v3/docs/channels/list).
        const handles =
          q.get('mine') === 'true'
            ? accountsOf(platform, me.handle)
            : [q.get('forHandle')?.replace(/^@/, '')].filter((h): h is string => !!h);
        const max = Math.min(50, Math.max(1, Number(q.get('maxResults')) || 5));
        const offset = Math.max(0, Number(q.get('pageToken')?.replace(/^p/, '')) || 0);
        const page = handles.slice(offset, offset + max);
        return {
          kind: 'youtube#channelListResponse',
          pageInfo: { totalResults: handles.length, resultsPerPage: max },
          ...(offset + max < handles.length ? { nextPageToken: `p${offset + max}` } : {}),
          ...(page.length ? { items: page.map((h) => channelOf(account(platform, h))) } : {}),
        };
      }
      if (path === '/analytics/reports') {
        const a = byId(/^channel==(.+)$/.exec(q.get('ids') ?? '')?.[1] ?? '', 'UC');
        const metrics = (q.get('metrics') ?? 'views').split(',');
        const since = q.get('startDate') ?? addDays(day, -29);
        const until = q.get('endDate') ?? day;
        const value = (m: DayMetrics, name: string) => {
          const net = m.followers - a.followersOn(addDays(m.day, -1));
          switch (name) {
            case 'views':
              return m.impressions;
            case 'likes':
              return m.likes;
            case 'comments':
              return m.comments;
            case 'shares':
              return m.shares;
            case 'subscribersGained':
              return Math.max(0, net);
            case 'subscribersLost':
              return Math.max(0, -net);
            default:
              return 0;
          }
        };
        return {
          kind: 'youtubeAnalytics#resultTable',
          columnHeaders: [
            { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
            ...metrics.map((name) => ({ name, columnType: 'METRIC', dataType: 'INTEGER' })),
          ],
          rows: a.range(since, until, day).map((m) => [m.day, ...metrics.map((n) => value(m, n))]),
        };
      }
      if (path === '/data/playlistItems') {
        const a = byId(q.get('playlistId') ?? '', 'UU');
        const max = Math.min(50, Math.max(1, Number(q.get('maxResults')) || 5));
        const start = q.get('pageToken') && isCalendarDay(q.get('pageToken')!) ? q.get('pageToken')! : day;
        const items: unknown[] = [];
        let d = start;
        // A page holds whole days (a day's videos never straddle two pages).
        for (; d >= HISTORY_START && items.length < max; d = addDays(d, -1)) {
          for (const p of [...a.metrics(d).posts].reverse())
            items.push({
              kind: 'youtube#playlistItem',
              contentDetails: { videoId: p.id, videoPublishedAt: p.at },
            });
        }
        return {
          kind: 'youtube#playlistItemListResponse',
          items,
          ...(d >= HISTORY_START ? { nextPageToken: d } : {}),
        };
      }
      throw new HttpError(404, { error: { code: 404, message: `no such endpoint ${path}` } });
    }

    // twitter (X API v2)
    const userOf = (a: SyntheticAccount) => ({
      data: {
        id: `x${a.handle}`,
        name: `${a.handle} (simulated)`,
        username: a.handle,
        description: 'A simulated brand account',
        url: `https://t.example/${a.handle}`,
        profile_image_url: `https://pbs.example/${a.handle}.jpg`,
        public_metrics: { followers_count: a.followersOn(day), following_count: 10, tweet_count: 500 },
      },
    });
    if (path === '/api/users/me') return userOf(account(platform, me.handle));
    const byName = /^\/api\/users\/by\/username\/([^/]+)$/.exec(path);
    if (byName) return userOf(account(platform, decodeURIComponent(byName[1]!)));
    const timeline = /^\/api\/users\/x([^/]+)\/(tweets|mentions)$/.exec(path);
    if (timeline) {
      const a = account(platform, decodeURIComponent(timeline[1]!));
      const since = utcDay(new Date(q.get('start_time') ?? `${addDays(day, -6)}T00:00:00Z`));
      const until = addDays(utcDay(new Date(q.get('end_time') ?? `${addDays(day, 1)}T00:00:00Z`)), -1);
      const days = a.range(since, until, day).reverse();
      const all =
        timeline[2] === 'tweets'
          ? days.flatMap((m) =>
              [...m.posts].reverse().map((p) => ({
                id: p.id,
                text: 'A simulated post',
                created_at: p.at.replace('Z', '.000Z'),
                edit_history_tweet_ids: [p.id],
                public_metrics: {
                  retweet_count: Math.round(m.shares / m.posts.length),
                  reply_count: Math.round(m.comments / m.posts.length),
                  like_count: Math.round(m.likes / m.posts.length),
                  quote_count: 0,
                  bookmark_count: Math.round(m.saves / m.posts.length),
                  impression_count: Math.round(m.impressions / m.posts.length),
                },
              })),
            )
          : days.flatMap((m) =>
              m.mentions.map((x) => ({ id: x.id, text: x.text, created_at: x.at.replace('Z', '.000Z') })),
            );
      const max = Math.min(100, Math.max(5, Number(q.get('max_results')) || 10));
      const offset = Number(q.get('pagination_token')?.replace(/^p/, '')) || 0;
      const page = all.slice(offset, offset + max);
      return {
        ...(page.length ? { data: page } : {}),
        meta: {
          result_count: page.length,
          ...(offset + max < all.length ? { next_token: `p${offset + max}` } : {}),
        },
      };
    }
    throw new HttpError(404, { title: 'Not Found Error', detail: `no such endpoint ${path}` });
  }

  async function control(req: IncomingMessage, url: URL): Promise<unknown> {
    const body = req.method === 'POST' ? JSON.parse((await readBody(req)) || '{}') : {};
    const platformOf = (p: unknown): Platform => {
      if (!PLATFORMS.includes(p as Platform)) throw new HttpError(422, { error: `unknown platform ${p}` });
      return p as Platform;
    };
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /_sim/state':
        return { today: today(), speed, faults: Object.fromEntries(faults), stats: counts };
      case 'POST /_sim/clock':
        sim.advanceDays(Number(body.advance_days ?? 1));
        return { today: today() };
      case 'POST /_sim/faults':
        sim.setFaults(platformOf(body.platform), body.faults ?? {});
        return faults.get(platformOf(body.platform));
      case 'POST /_sim/revoke-refresh-tokens':
        return { revoked: sim.revokeRefreshTokens(platformOf(body.platform), body.handle) };
      case 'POST /_sim/expire-access-tokens':
        return { expired: sim.expireAccessTokens(platformOf(body.platform), body.handle) };
      case 'POST /_sim/users':
        sim.setUser(platformOf(body.platform), String(body.login ?? ''), {
          ...(Array.isArray(body.accounts) ? { accounts: body.accounts.map(String) } : {}),
          ...(Array.isArray(body.declined_scopes)
            ? { declinedScopes: body.declined_scopes.map(String) }
            : {}),
        });
        return { ok: true };
      case 'POST /_sim/tokens':
        return sim.issueTokens(platformOf(body.platform), String(body.handle ?? 'simbrand'));
      default:
        throw new HttpError(404, { error: 'no such control endpoint' });
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://simulator');
      const origin = `http://${req.headers.host ?? 'localhost'}`;
      let status = 200;
      try {
        if (url.pathname.startsWith('/_sim/')) {
          const answer = JSON.stringify(await control(req, url));
          res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
          return;
        }
        const [, first, ...rest] = url.pathname.split('/');
        const platform = first as Platform;
        if (!PLATFORMS.includes(platform)) throw new HttpError(404, { error: 'unknown platform' });
        const path = `/${rest.join('/')}`;
        if (path === '/oauth/authorize' && req.method === 'GET') return authorize(platform, url, res);
        if (path.startsWith('/oauth/') && req.method === 'POST') {
          const form = new URLSearchParams(await readBody(req));
          if (path === '/oauth/token') {
            const answer = JSON.stringify(token(platform, req, form));
            res
              .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
              .end(answer);
            return;
          }
          if (path === '/oauth/revoke') {
            revoke(platform, req, form);
            res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
            return;
          }
        }
        // The platform's clock, as every HTTP answer carries it (RFC 9110 6.6.1): the simulated one. The
        // service stores no day after it (src/ingest/sync.ts), as for a real platform.
        res.setHeader('date', new Date(simNow()).toUTCString());
        const f = faults.get(platform)!;
        try {
          if (f.slowMs > 0) await new Promise((r) => setTimeout(r, f.slowMs));
          if (f.burst429 > 0) {
            f.burst429--;
            throw new HttpError(
              429,
              { error: { message: 'rate limit reached (simulated)', code: 4 } },
              { 'retry-after': String(f.retryAfterSeconds) },
            );
          }
          if (f.errors5xx > 0) {
            f.errors5xx--;
            throw new HttpError(503, { error: { message: 'service unavailable (simulated)', code: 2 } });
          }
          const me = authenticate(platform, req);
          const answer = api(platform, path, url, `${origin}/${platform}`, me);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        } finally {
          status = res.statusCode;
        }
      } catch (error) {
        const e =
          error instanceof HttpError
            ? error
            : error instanceof SyntaxError
              ? new HttpError(400, { error: 'invalid_request', error_description: 'malformed body' })
              : new HttpError(500, { error: { message: (error as Error).message } });
        status = e.status;
        if (!res.headersSent)
          res
            .writeHead(e.status, { 'content-type': 'application/json', ...e.headers })
            .end(JSON.stringify(e.body));
      } finally {
        const [, first] = url.pathname.split('/');
        if (PLATFORMS.includes(first as Platform) && !url.pathname.includes('/oauth/')) {
          const c = counts[first as Platform];
          c[status] = (c[status] ?? 0) + 1;
        }
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const sim: Simulator = {
    url: `http://${host}:${address.port}`,
    server,
    today,
    advanceDays(days) {
      if (!Number.isInteger(days) || days < 0 || days > 3650)
        throw new HttpError(422, { error: 'advance_days must be an integer 0..3650' });
      advancedDays += days;
    },
    setFaults(platform, patch) {
      const f = faults.get(platform)!;
      for (const key of Object.keys(DEFAULT_FAULTS) as Array<keyof Faults>) {
        const v = patch[key];
        if (v === undefined) continue;
        if (typeof v !== typeof DEFAULT_FAULTS[key] || (typeof v === 'number' && !(v >= 0)))
          throw new HttpError(422, { error: `fault ${key} must be a ${typeof DEFAULT_FAULTS[key]} >= 0` });
        (f as unknown as Record<string, unknown>)[key] = v;
      }
    },
    revokeRefreshTokens(platform, handle) {
      let n = 0;
      for (const [k, g] of refreshTokens)
        if (g.platform === platform && (!handle || g.handle === handle)) {
          refreshTokens.delete(k);
          n++;
        }
      return n;
    },
    expireAccessTokens(platform, handle) {
      let n = 0;
      const at = now();
      for (const t of accessTokens.values())
        if (t.platform === platform && (!handle || t.handle === handle) && t.expiresAt > at) {
          t.expiresAt = at;
          n++;
        }
      return n;
    },
    setUser(platform, login, user) {
      users.set(`${platform}:${login.replace(/^@/, '').toLowerCase()}`, {
        ...(user.accounts ? { accounts: user.accounts.map((a) => a.toLowerCase()) } : {}),
        ...(user.declinedScopes ? { declinedScopes: [...user.declinedScopes] } : {}),
      });
    },
    issueTokens: (platform, handle) => issue({ platform, handle, scope: SCOPES[platform] }),
    stats: () => counts,
    issuedTokens: () => [...everIssued],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sim;
}
