import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addDays, DAY_MS, isCalendarDay, utcDay } from '../src/core/days.ts';
import { PLATFORMS, type Platform } from '../src/core/catalog.ts';
import { SIMULATOR_CLIENT_SECRET, simulatorClientId } from '../src/platforms/simulator-client.ts';
import {
  HISTORY_START,
  SyntheticAccount,
  type DayMetrics,
  type StagedCrisis,
  type StagedPod,
} from './accounts.ts';

/**
 * The platform simulator: on loopback, an OAuth 2.0 authorization server per platform (authorization
 * code with PKCE S256, refresh with rotation, RFC 7009 revocation) and the five platforms' APIs in the
 * shapes src/ingest/connectors/ read, for deterministic synthetic accounts (accounts.ts). Its clock
 * reveals one more day of data per simulated day; `speed` simulated seconds pass per real second.
 * Faults are injected per platform through the control API under /_sim/. It speaks the real platforms'
 * OAuth quirks (TikTok's API for Business token endpoints and envelopes; Meta's short-lived code token, fb_exchange_token grant, /me as the
 * person and /me/accounts for Pages), so the service's handling of them is tested end to end.
 *
 * Layout: /<platform>/oauth/{authorize,token,revoke}, /<platform>/<api>/... (api names as in each
 * connector's defaultBaseUrls), /_sim/{state,clock,faults,tokens}.
 */

export interface Faults {
  /**
   * The next n API requests are throttled as the platform does it: 429 with Retry-After (Meta, TikTok),
   * 403 quotaExceeded (YouTube), 429 with x-rate-limit-reset (X).
   */
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
  /**
   * Answers given as they are, before anything else: a platform's own error (a Graph code, a Google
   * reason, a TikTok envelope, a reset header). The first whose `path` prefixes the API path (after
   * /<platform>; none = every path) answers, `times` times (default 1). Setting it replaces the list.
   */
  answers: FaultAnswer[];
}

export interface FaultAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  path?: string;
  times?: number;
}

const DEFAULT_FAULTS: Faults = {
  burst429: 0,
  retryAfterSeconds: 1,
  errors5xx: 0,
  slowMs: 0,
  tokenTtlSeconds: 3600,
  denyConsent: false,
  answers: [],
};

/** A fault answer as the control API accepts it, else a 422. */
function faultAnswers(value: unknown): FaultAnswer[] {
  const bad = (why: string) => new HttpError(422, { error: `fault answers: ${why}` });
  if (!Array.isArray(value) || value.length > 100) throw bad('must be an array of at most 100');
  return value.map((a: any) => {
    if (!a || typeof a !== 'object') throw bad('each must be an object');
    if (!Number.isInteger(a.status) || a.status < 200 || a.status > 599) throw bad('status must be 200..599');
    if (a.path !== undefined && (typeof a.path !== 'string' || !a.path.startsWith('/')))
      throw bad('path must start with /');
    if (a.times !== undefined && (!Number.isInteger(a.times) || a.times < 1)) throw bad('times must be >= 1');
    const headers = a.headers ?? {};
    if (typeof headers !== 'object' || Object.values(headers).some((v) => typeof v !== 'string'))
      throw bad('headers must map names to strings');
    return { status: a.status, body: a.body ?? {}, headers, path: a.path, times: a.times ?? 1 };
  });
}

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
  /**
   * Stages a crisis on one account (simulator/accounts.ts StagedCrisis): from `from` for `days` days its
   * comments and mentions surge and turn negative. Returns the account's staged crises.
   */
  stageCrisis(platform: Platform, handle: string, crisis: StagedCrisis): { crises: StagedCrisis[] };
  /**
   * Stages an engagement pod on one Instagram account (simulator/accounts.ts StagedPod): from `from` for
   * `days` days the same `members` like and comment on every post within minutes. Returns its pods.
   */
  stagePod(platform: Platform, handle: string, pod: StagedPod): { pods: StagedPod[] };
  /**
   * Deletes `count` comments from the first post of `day` on one account (Instagram and Facebook): its
   * lifetime comment count reads that much lower from now on. Returns the post and its deleted total.
   */
  deleteComments(
    platform: Platform,
    handle: string,
    day: string,
    count: number,
  ): { post_id: string; deleted: number };
  /** Sets what a login manages and declines at consent (the default: one account, everything granted). */
  setUser(platform: Platform, login: string, user: SimulatedUser): void;
  /**
   * Issues tokens directly, as if a user had consented (bench and tests); `scope` (space- or
   * comma-separated): the permissions the user granted, default all the service asks for.
   */
  issueTokens(platform: Platform, handle: string, scope?: string): TokenAnswer;
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
  instagram:
    'instagram_basic instagram_manage_insights instagram_manage_comments pages_show_list pages_read_engagement business_management',
  facebook: 'pages_show_list pages_read_engagement read_insights pages_read_user_content',
  tiktok:
    'user.info.basic,user.info.username,user.info.profile,user.info.stats,user.insights,video.list,comment.list',
  youtube:
    'https://www.googleapis.com/auth/youtube.readonly https://www.googleapis.com/auth/yt-analytics.readonly https://www.googleapis.com/auth/youtube.force-ssl',
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

/**
 * X registers an app as a confidential client (Basic authentication with its secret) or a public one
 * (client_id and PKCE only); the simulator knows one of each
 * (https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token).
 */
export const X_PUBLIC_CLIENT_ID = 'brandhealth-twitter-public';

/** Google's scopes: a YouTube endpoint answers a token granted at least one of its scopes. */
const YT = 'https://www.googleapis.com/auth/';
const YOUTUBE_READ = [`${YT}youtube.readonly`, `${YT}youtube`, `${YT}youtube.force-ssl`];
const YOUTUBE_ANALYTICS = [`${YT}yt-analytics.readonly`, `${YT}yt-analytics-monetary.readonly`];

/**
 * Google's 403 for a token without the scope an endpoint needs: `insufficientPermissions` in the error
 * envelope and the scope in WWW-Authenticate (RFC 6750 3.1).
 */
const googleScopeRefusal = (scope: string) =>
  new HttpError(
    403,
    {
      error: {
        code: 403,
        message: 'Request had insufficient authentication scopes.',
        errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
        status: 'PERMISSION_DENIED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            domain: 'googleapis.com',
          },
        ],
      },
    },
    {
      'www-authenticate': `Bearer realm="https://accounts.google.com/", error="insufficient_scope", scope="${scope}"`,
    },
  );

/**
 * TikTok API for Business: every answer is an envelope `{code, message, request_id, data}` sent with
 * HTTP 200, errors included (https://business-api.tiktok.com/portal/docs?id=1738373164380162).
 */
const tiktokEnvelope = (code: number, message: string, data: unknown = {}) => ({
  code,
  message,
  request_id: `sim${Date.now()}`,
  data,
});
const tiktokError = (code: number, message: string) => new HttpError(200, tiktokEnvelope(code, message));
/** The scope each /business/get/ field needs; the video list and comments need theirs whatever the fields. */
const TIKTOK_FIELD_SCOPES: Record<string, string> = {
  display_name: 'user.info.basic',
  profile_image: 'user.info.basic',
  username: 'user.info.username',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  followers_count: 'user.info.stats',
  following_count: 'user.info.stats',
  total_likes: 'user.info.stats',
  videos_count: 'user.info.stats',
  video_views: 'user.insights',
  profile_views: 'user.insights',
  likes: 'user.insights',
  comments: 'user.insights',
  shares: 'user.insights',
};
/** Days of daily metrics /business/get/ goes back (start_date). */
const TIKTOK_LOOKBACK_DAYS = 60;

/**
 * Graph's throttling: no 429 and no Retry-After, but a 400 with the business-use-case code (Instagram
 * 80002; a Page token 32, Page-level throttling) and the usage header whose
 * `estimated_time_to_regain_access` is in whole minutes.
 * https://developers.facebook.com/docs/graph-api/overview/rate-limiting/
 */
function graphThrottle(platform: Platform, retryAfterSeconds: number): HttpError {
  const instagram = platform === 'instagram';
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return new HttpError(
    400,
    {
      error: {
        message: instagram
          ? 'There have been too many calls to this Instagram account. Wait a bit and try again.'
          : '(#32) Page request limit reached',
        type: 'OAuthException',
        is_transient: true,
        code: instagram ? 80002 : 32,
        fbtrace_id: 'simthrottle',
      },
    },
    {
      'x-business-use-case-usage': JSON.stringify({
        [instagram ? '17841400000000001' : '104000000000001']: [
          {
            type: instagram ? 'instagram' : 'pages',
            call_count: 100,
            total_cputime: 12,
            total_time: 14,
            estimated_time_to_regain_access: minutes,
          },
        ],
      }),
    },
  );
}

const graphTime = (iso: string) => iso.replace(/\.\d{3}Z$|Z$/, '+0000');
const unixSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const speed = options.speed ?? 1;
  const startedAt = now();
  const startDay = options.startDay ?? utcDay(new Date(startedAt));
  if (!isCalendarDay(startDay)) throw new Error(`startDay must be YYYY-MM-DD, got "${startDay}"`);
  let advancedDays = 0;
  const faults = new Map<Platform, Faults>(PLATFORMS.map((p) => [p, { ...DEFAULT_FAULTS, answers: [] }]));
  const codes = new Map<
    string,
    Grant & {
      clientId: string;
      redirectUri: string;
      challenge: string;
      expiresAt: number;
      /** Google: the authorize request asked for offline access, and for the consent screen again. */
      offline?: boolean;
      reconsent?: boolean;
    }
  >();
  /** Google: the accounts that already granted offline access (a refresh token) to the client. */
  const googleOffline = new Set<string>();
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
  /** Crises staged per account (`${platform}:${handle}`): POST /_sim/crisis. */
  const crises = new Map<string, StagedCrisis[]>();
  /** Comments deleted per post (`${platform}:${post id}`): POST /_sim/delete-comments. */
  const deletedComments = new Map<string, number>();
  /** Pods staged per account (`${platform}:${handle}`): POST /_sim/pod. */
  const pods = new Map<string, StagedPod[]>();
  const account = (platform: Platform, handle: string) =>
    new SyntheticAccount(
      platform,
      handle,
      crises.get(`${platform}:${handle}`),
      pods.get(`${platform}:${handle}`),
    );

  /**
   * A token pair for a grant. Meta's tokens come without a refresh token (`refresh: false`): a
   * short-lived one from the code, then a long-lived one (`ttlSeconds`) from fb_exchange_token.
   */
  function issue(
    grant: Grant,
    options: { rotateFrom?: string; refresh?: boolean; ttlSeconds?: number; keepRefresh?: string } = {},
  ): TokenAnswer {
    if (options.rotateFrom) refreshTokens.delete(options.rotateFrom);
    const access = `sim_at_${b64url(randomBytes(24))}`;
    const refresh = options.refresh === false ? null : `sim_rt_${b64url(randomBytes(24))}`;
    const ttl = options.ttlSeconds ?? faults.get(grant.platform)!.tokenTtlSeconds;
    accessTokens.set(access, {
      ...grant,
      expiresAt: now() + ttl * 1000,
      refreshToken: refresh ?? options.keepRefresh ?? null,
    });
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

  /**
   * X: a confidential client sends HTTP Basic and its client_id in the form too; the secret in the form
   * alone is answered 401 unauthorized_client "Missing valid authorization header". A public client
   * sends only its client_id. Returns the authenticated client id.
   */
  function checkXClient(req: IncomingMessage, form: URLSearchParams): string {
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    const id = form.get('client_id');
    if (!id) throw oauthError(400, 'invalid_request', 'Missing required parameter [client_id].');
    if (!basic) {
      if (id === X_PUBLIC_CLIENT_ID && !form.has('client_secret')) return id;
      throw oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
    }
    const [u, p] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    if (
      decodeURIComponent(u ?? '') !== simulatorClientId('twitter') ||
      decodeURIComponent(p ?? '') !== SIMULATOR_CLIENT_SECRET ||
      id !== simulatorClientId('twitter')
    )
      throw oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
    return id;
  }

  function checkClient(platform: Platform, req: IncomingMessage, form: URLSearchParams): void {
    if (platform === 'twitter') {
      checkXClient(req, form);
      return;
    }
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

  function authorize(platform: Platform, url: URL, res: ServerResponse, origin: string): void {
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    const knownClient =
      q.get(clientIdParam(platform)) === simulatorClientId(platform) ||
      (platform === 'twitter' && q.get('client_id') === X_PUBLIC_CLIENT_ID);
    if (!knownClient) throw oauthError(400, 'invalid_client', `unknown ${clientIdParam(platform)}`);
    if (!redirectUri || !/^https?:\/\//.test(redirectUri))
      throw oauthError(400, 'invalid_request', 'redirect_uri is required');
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    // Google names itself in the authorization response (RFC 9207 iss), successful or not.
    if (platform === 'youtube') back.searchParams.set('iss', `${origin}/${platform}`);
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
      ...(platform === 'youtube'
        ? {
            offline: q.get('access_type') === 'offline',
            reconsent: (q.get('prompt') ?? '').split(' ').includes('consent'),
          }
        : {}),
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
      if (platform === 'twitter' && form.get('client_id') !== grant.clientId)
        throw oauthError(400, 'invalid_grant', 'the code was issued to another client');
      if (platform === 'youtube') {
        // Google issues a refresh token only for access_type=offline, and after the account's first
        // offline consent only when prompt=consent asked for it again.
        const refresh =
          grant.offline === true && (grant.reconsent === true || !googleOffline.has(grant.handle));
        if (refresh) googleOffline.add(grant.handle);
        return issue({ platform, handle: grant.handle, scope: grant.scope }, { refresh });
      }
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
      // Google keeps the refresh token: the answer has a new access token only.
      if (platform === 'youtube') return issue(grant, { refresh: false, keepRefresh: refresh });
      return issue(grant, { rotateFrom: refresh });
    }
    throw oauthError(400, 'unsupported_grant_type', `grant_type ${grantType}`);
  }

  /**
   * The TikTok API for Business account-holder token endpoints (`/tiktok/oauth/token`, `/refresh_token`,
   * `/revoke`, standing for `/open_api/v1.3/tt_user/oauth2/...`): a JSON body with the app's client_id and
   * client_secret, the code as `auth_code`, revocation by access token; every answer an HTTP 200 envelope.
   * https://business-api.tiktok.com/portal/docs?id=1738084387220481
   */
  function tiktokToken(path: string, req: IncomingMessage, text: string): unknown {
    let body: Record<string, unknown>;
    try {
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new Error('not JSON');
      body = JSON.parse(text) as Record<string, unknown>;
      if (typeof body !== 'object' || body === null) throw new Error('not an object');
    } catch {
      throw tiktokError(40002, 'The request body must be JSON (Content-Type: application/json).');
    }
    if (body.client_id !== simulatorClientId('tiktok') || body.client_secret !== SIMULATOR_CLIENT_SECRET)
      throw tiktokError(40101, 'Illegal access partner: the client_id and client_secret do not match.');
    if (path === '/oauth/revoke') {
      const access = accessTokens.get(String(body.access_token ?? ''));
      if (access?.platform === 'tiktok') {
        accessTokens.delete(String(body.access_token));
        if (access.refreshToken) refreshTokens.delete(access.refreshToken);
      }
      return tiktokEnvelope(0, 'OK');
    }
    const answer = (t: TokenAnswer) =>
      tiktokEnvelope(0, 'OK', {
        access_token: t.access_token,
        expires_in: t.expires_in,
        open_id: t.open_id,
        refresh_token: t.refresh_token,
        refresh_token_expires_in: 31_536_000,
        scope: t.scope,
        token_type: 'Bearer',
      });
    if (path === '/oauth/token' && body.grant_type === 'authorization_code') {
      const code = String(body.auth_code ?? '');
      const grant = codes.get(code);
      codes.delete(code); // single use, whatever happens next
      if (!grant || grant.platform !== 'tiktok' || grant.expiresAt < now())
        throw tiktokError(40131, 'Authorization code is expired.');
      if (body.redirect_uri !== grant.redirectUri)
        throw tiktokError(40002, 'redirect_uri does not match the TikTok account holder redirect URL.');
      return answer(issue({ platform: 'tiktok', handle: grant.handle, scope: grant.scope }));
    }
    if (path === '/oauth/refresh_token' && body.grant_type === 'refresh_token') {
      const refresh = String(body.refresh_token ?? '');
      const grant = refreshTokens.get(refresh);
      if (!grant || grant.platform !== 'tiktok')
        throw tiktokError(40105, 'The refresh token is incorrect or has been revoked.');
      return answer(issue(grant, { rotateFrom: refresh }));
    }
    throw tiktokError(40002, `grant_type ${String(body.grant_type)} is not accepted at ${path}`);
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
      if (platform === 'youtube') googleOffline.delete(refreshTokens.get(value)!.handle);
      refreshTokens.delete(value);
      for (const [k, t] of accessTokens) if (t.refreshToken === value) accessTokens.delete(k);
    }
  }

  /** TikTok reports throttling (40100) and its own outages (5xxxx) in HTTP 200 envelopes too. */
  function tiktokFaults(f: Faults): void {
    if (f.burst429 > 0) {
      f.burst429--;
      throw tiktokError(40100, 'Requests made too frequently (simulated).');
    }
    if (f.errors5xx > 0) {
      f.errors5xx--;
      throw tiktokError(50002, 'System error (simulated).');
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
        ? tiktokError(40105, `Access token is incorrect or has been revoked. (${why})`)
        : platform === 'twitter'
          ? new HttpError(401, { title: 'Unauthorized', detail: why, status: 401 })
          : platform === 'youtube'
            ? new HttpError(401, {
                error: {
                  code: 401,
                  message: `Request had invalid authentication credentials. ${why}`,
                  errors: [
                    {
                      message: 'Invalid Credentials',
                      domain: 'global',
                      reason: 'authError',
                      location: 'Authorization',
                      locationType: 'header',
                    },
                  ],
                  status: 'UNAUTHENTICATED',
                },
              })
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

  /**
   * Meta's Graph API for the two Meta platforms, refusing what Graph refuses: removed metrics
   * (`impressions`, `page_impressions`), `views` without `metric_type=total_value`, a `period=day`
   * window over 30 days (Instagram) or 90 days (Pages), Instagram insights earlier than 30 days ago,
   * and a call whose permission the token was not granted (code 10). Served under an optional version
   * segment (`/graph/v26.0/...`), as graph.facebook.com serves unversioned calls at the app's version.
   */
  function graphApi(
    platform: 'instagram' | 'facebook',
    rawSegments: string[],
    q: URLSearchParams,
    origin: string,
    me: AccessToken,
    day: string,
  ): unknown {
    const [apiName, ...afterApi] = rawSegments;
    const versioned = /^v\d+\.\d+$/.test(afterApi[0] ?? '');
    const [node, edge] = versioned ? afterApi.slice(1) : afterApi;
    const root = `${origin}/graph${versioned ? `/${afterApi[0]}` : ''}`;
    const prefix = platform === 'instagram' ? 'ig_' : 'page_';
    const graphError = (status: number, message: string, code: number, extra: Record<string, unknown> = {}) =>
      new HttpError(status, {
        error: {
          message,
          type: 'OAuthException',
          code,
          ...extra,
          fbtrace_id: `sim${randomBytes(6).toString('hex')}`,
        },
      });
    const notFound = (what: string) =>
      new HttpError(404, {
        error: { message: `Unknown path components: /${what}`, type: 'OAuthException', code: 2500 },
      });
    // A `period=day` series per metric, each value ending at the next day's 08:00 UTC (Pacific midnight).
    const daySeries = (
      metrics: string[],
      series: Map<string, (m: DayMetrics) => number>,
      days: DayMetrics[],
    ) =>
      metrics.map((name) => ({
        name,
        period: 'day',
        values: days.map((m) => ({
          value: series.get(name)!(m),
          end_time: `${addDays(m.day, 1)}T08:00:00+0000`,
        })),
        title: name,
        id: `${node}/insights/${name}/day`,
      }));
    if (apiName !== 'graph' || !node) throw notFound(rawSegments.join('/'));
    const granted = new Set(me.scope.split(/[\s,]+/).filter(Boolean));
    const requireScope = (scope: string, message: string) => {
      if (!granted.has(scope)) throw graphError(403, message, 10);
    };
    const unix = (name: string): number | null => {
      const raw = q.get(name);
      const v = Number(raw);
      return raw && Number.isFinite(v) ? v : null;
    };
    const byId = (id: string) => {
      if (!id.startsWith(prefix)) {
        throw graphError(
          400,
          `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
          100,
          { error_subcode: 33 },
        );
      }
      return account(platform, id.slice(prefix.length));
    };

    // As Meta: /me is the person; the Page (and the Instagram business account linked to it) is
    // listed by /me/accounts, each Page with its own token.
    if (node === 'me' && !edge) return { id: `user_${me.handle}`, name: `${me.handle} (simulated person)` };
    if (node === 'me' && edge === 'permissions') {
      // https://developers.facebook.com/docs/graph-api/reference/user/permissions/
      return {
        data: [
          ...[...granted].map((permission) => ({ permission, status: 'granted' })),
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
      const next = new URL(`${root}/${node}/${edge}`);
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

    // An Instagram media node (its insights): a post of the token holder's account.
    if (platform === 'instagram' && !node.startsWith(prefix) && edge === 'insights') {
      const a = account(platform, me.handle);
      const postDay = /^\d{8}$/.test(node.slice(-9, -1))
        ? `${node.slice(-9, -5)}-${node.slice(-5, -3)}-${node.slice(-3, -1)}`
        : '';
      const m = isCalendarDay(postDay) && node.startsWith(a.numericId) ? a.metrics(postDay) : null;
      const t = m ? a.postTotals(postDay, day) : null;
      if (!m || !t || !m.posts.some((p) => p.id === node)) throw byId(node);
      requireScope('instagram_manage_insights', '(#10) Application does not have permission for this action');
      const metrics = (q.get('metric') ?? '').split(',').filter(Boolean);
      const known = new Set(['reach', 'saved', 'shares', 'views', 'likes', 'comments', 'total_interactions']);
      const bad = metrics.find((name) => !known.has(name));
      if (!metrics.length || bad)
        throw graphError(
          400,
          `(#100) metric[${metrics.indexOf(bad ?? '')}] must be one of the following values: ${[...known].join(', ')}`,
          100,
        );
      const share = (n: number) => Math.round(n / m.posts.length);
      const value = (name: string) =>
        name === 'saved'
          ? share(t.saves)
          : name === 'shares'
            ? share(t.shares)
            : name === 'likes'
              ? share(t.likes)
              : name === 'comments'
                ? share(t.comments)
                : name === 'reach'
                  ? share(Math.round(m.impressions * 0.7))
                  : share(m.impressions);
      return {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: value(name) }],
          title: name,
          id: `${node}/insights/${name}/lifetime`,
        })),
      };
    }

    // A post's comments edge, oldest first, cursor-paginated like the page nested in the post
    // (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments,
    // https://developers.facebook.com/docs/graph-api/reference/object/comments).
    if (edge === 'comments' && node !== 'me') {
      const owner = account(platform, me.handle);
      const postId = platform === 'instagram' ? node : node.slice(node.lastIndexOf('_') + 1);
      if (platform === 'facebook' && node.slice(0, node.lastIndexOf('_')) !== `${prefix}${owner.handle}`)
        throw notFound(node);
      const postDay = /^\d{8}$/.test(postId.slice(-9, -1))
        ? `${postId.slice(-9, -5)}-${postId.slice(-5, -3)}-${postId.slice(-3, -1)}`
        : '';
      const m = isCalendarDay(postDay) && postId.startsWith(owner.numericId) ? owner.metrics(postDay) : null;
      const t = m ? owner.postTotals(postDay, day) : null;
      const at = m ? m.posts.findIndex((p) => p.id === postId) : -1;
      if (!m || !t || at < 0) throw notFound(node);
      if (platform === 'instagram') {
        requireScope(
          'instagram_manage_comments',
          '(#10) Application does not have permission for this action',
        );
        requireScope('pages_read_engagement', '(#10) Application does not have permission for this action');
      } else
        requireScope(
          'pages_read_user_content',
          "(#10) This endpoint requires the 'pages_read_user_content' permission",
        );
      const texts = at === 0 ? t.commentTexts : [];
      const limit = Math.min(100, Math.max(1, Number(q.get('limit')) || 25));
      const offset = Math.max(0, Number(q.get('after')) || 0);
      const asked = q.get('fields') ?? '';
      return {
        data: texts
          .slice(offset, offset + limit)
          .map((c) =>
            platform === 'instagram'
              ? igComment(c, asked)
              : { message: c.text, created_time: graphTime(c.at) },
          ),
        ...commentsPaging(node, offset, limit, texts.length, platform, asked),
      };
    }

    /**
     * An IG Comment with the fields asked for besides its text and time: `from` (the commenter's IGSID and
     * username, https://developers.facebook.com/docs/graph-api/changelog/ooc-changes/oct-20-2021) and
     * `username` only when named, as Graph returns only the fields asked for.
     */
    function igComment(c: { text: string; at: string; by: string }, fields: string): Record<string, unknown> {
      const named = new Set(fields.split(',').map((f) => f.trim()));
      return {
        text: c.text,
        timestamp: graphTime(c.at),
        ...(named.has('from') ? { from: { id: c.by, username: `user${c.by.slice(-6)}` } } : {}),
        ...(named.has('username') ? { username: `user${c.by.slice(-6)}` } : {}),
      };
    }

    /** Cursors of a page of a post's comments, and the next page's link when there are more. */
    function commentsPaging(
      postId: string,
      offset: number,
      limit: number,
      total: number,
      on: 'instagram' | 'facebook',
      fields: string,
    ): { paging?: { cursors: { before: string; after: string }; next?: string } } {
      if (limit === 0) return {};
      const next = new URL(`${root}/${postId}/comments`);
      next.searchParams.set(
        'fields',
        fields || (on === 'instagram' ? 'text,timestamp' : 'message,created_time'),
      );
      next.searchParams.set('limit', String(limit));
      next.searchParams.set('after', String(offset + limit));
      return {
        paging: {
          cursors: { before: String(offset), after: String(offset + limit) },
          ...(offset + limit < total ? { next: next.href } : {}),
        },
      };
    }

    if (!edge) {
      // As the Graph API: an Instagram account is addressed by its id only (no lookup by username);
      // a Page also by its username.
      const a = platform === 'instagram' || node.startsWith(prefix) ? byId(node) : account(platform, node);
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
    const a = byId(node);
    const net = (m: DayMetrics) => m.followers - a.followersOn(addDays(m.day, -1));

    if (edge === 'insights') {
      if (platform === 'instagram')
        requireScope(
          'instagram_manage_insights',
          '(#10) Application does not have permission for this action',
        );
      else requireScope('read_insights', '(#10) This endpoint requires the read_insights permission');
      const metrics = (q.get('metric') ?? '').split(',').filter(Boolean);
      if (!metrics.length) throw graphError(400, '(#100) The parameter metric is required', 100);
      const since = unix('since');
      const until = unix('until');
      const from = since !== null ? utcDay(new Date(since * 1000)) : addDays(day, -1);
      const to = until !== null ? addDays(utcDay(new Date(until * 1000)), -1) : day;
      const span =
        (until ?? unixSeconds(`${addDays(day, 1)}T00:00:00Z`)) -
        (since ?? unixSeconds(`${addDays(day, -1)}T00:00:00Z`));
      if (platform === 'instagram') {
        // https://developers.facebook.com/docs/instagram-platform/api-reference/instagram-user/insights
        const series = new Map<string, (m: DayMetrics) => number>([
          ['reach', (m) => Math.round(m.impressions * 0.7)],
          // New followers each day (gains; the simulated accounts only grow).
          ['follower_count', (m) => Math.max(0, net(m))],
        ]);
        const totals = new Map<string, (m: DayMetrics) => number>([
          ['views', (m) => m.impressions],
          ['likes', (m) => m.likes],
          ['comments', (m) => m.comments],
          ['shares', (m) => m.shares],
          ['saves', (m) => m.saves],
        ]);
        const valid = [...series.keys(), ...totals.keys()];
        const bad = metrics.findIndex((name) => !valid.includes(name));
        if (bad >= 0)
          throw graphError(
            400,
            `(#100) metric[${bad}] must be one of the following values: ${valid.join(', ')}`,
            100,
          );
        const totalValue = q.get('metric_type') === 'total_value';
        const needsTotal = metrics.filter((name) => totals.has(name));
        if (!totalValue && needsTotal.length)
          throw graphError(
            400,
            `(#100) The following metrics (${needsTotal.join(', ')}) should be specified with parameter metric_type=total_value`,
            100,
          );
        if (q.get('period') !== 'day')
          throw graphError(
            400,
            '(#100) param period must be one of {day, week, days_28, month, lifetime}',
            100,
          );
        if (span > 30 * 86_400)
          throw graphError(
            400,
            '(#100) There cannot be more than 30 days (2592000 s) between since and until',
            100,
          );
        if (
          since !== null &&
          since < unixSeconds(`${addDays(day, -(30 - 1))}T00:00:00Z`) &&
          metrics.includes('follower_count')
        )
          throw graphError(400, '(#100) follower_count is only available for the last 30 days', 100);
        const days = a.range(from, to, day);
        if (totalValue)
          return {
            data: metrics.map((name) => ({
              name,
              period: 'day',
              title: name,
              total_value: {
                value: days.reduce((s, m) => s + (totals.get(name) ?? series.get(name)!)(m), 0),
              },
              id: `${node}/insights/${name}/day`,
            })),
          };
        return { data: daySeries(metrics, series, days) };
      }
      // Pages: https://developers.facebook.com/docs/graph-api/reference/insights
      const series = new Map<string, (m: DayMetrics) => number>([
        ['page_media_view', (m) => m.impressions],
        ['page_daily_follows_unique', (m) => Math.max(0, net(m))],
        ['page_daily_unfollows_unique', (m) => Math.max(0, -net(m))],
        ['page_follows', (m) => m.followers],
      ]);
      if (metrics.some((name) => !series.has(name)))
        throw graphError(400, '(#100) The value must be a valid insights metric', 100);
      if (span > 90 * 86_400)
        throw graphError(400, '(#100) There cannot be more than 90 days between since and until', 100);
      const days = a.range(from, to, day);
      return { data: daySeries(metrics, series, days), paging: {} };
    }

    if (edge === (platform === 'instagram' ? 'media' : 'published_posts')) {
      const fields = q.get('fields') ?? '';
      const wantsCommentTexts =
        platform === 'instagram' ? /\bcomments[.{]/.test(fields) : /comments[^,]*\{/.test(fields);
      if (wantsCommentTexts) {
        if (platform === 'instagram') {
          // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments
          requireScope(
            'instagram_manage_comments',
            '(#10) Application does not have permission for this action',
          );
          requireScope('pages_read_engagement', '(#10) Application does not have permission for this action');
        } else {
          requireScope(
            'pages_read_user_content',
            "(#10) This endpoint requires the 'pages_read_user_content' permission",
          );
        }
      }
      const limit = Math.min(100, Math.max(1, Number(q.get('limit')) || 25));
      // `comments.limit(N)`: the comments nested in each post, 25 by default (Graph's page size).
      const commentLimit = Math.min(
        100,
        Math.max(0, Number(/comments[^,{]*\.limit\((\d+)\)/.exec(fields)?.[1] ?? 25)),
      );
      // Instagram's media edge takes no time range: newest first, whole days a page, from the cursor.
      // Pages' published_posts honours since/until (time-based pagination).
      const cursor = q.get('after');
      const since = unix('since');
      const until = unix('until');
      const low = platform === 'instagram' || since === null ? HISTORY_START : utcDay(new Date(since * 1000));
      const high =
        cursor && isCalendarDay(cursor)
          ? cursor
          : platform === 'facebook' && until !== null
            ? addDays(utcDay(new Date(until * 1000)), -1)
            : day;
      const items: Array<{ p: { id: string; at: string }; m: DayMetrics; first: boolean; n: number }> = [];
      let d = high > day ? day : high;
      for (; d >= low && items.length < limit; d = addDays(d, -1)) {
        const m = a.metrics(d);
        if (!m.posts.length || !a.postTotals(d, day)) continue;
        m.posts.forEach((p, i) => items.push({ p, m, first: i === 0, n: m.posts.length }));
        items.sort((x, y) => (x.p.at < y.p.at ? 1 : -1));
      }
      const next = new URL(`${root}/${node}/${edge}`);
      for (const [k, v] of q) next.searchParams.set(k, v);
      next.searchParams.set('after', d);
      const data = items.map(({ p, m, first, n }) => {
        const t = a.postTotals(m.day, day)!;
        const likes = Math.round(t.likes / n);
        const comments = Math.max(
          0,
          Math.round(t.comments / n) - (deletedComments.get(`${platform}:${p.id}`) ?? 0),
        );
        // The first post of the day holds the comment texts: the first page of the `comments.limit(N)`
        // modifier nested in the post, with a cursor to the post's comments edge for the rest.
        const texts = first && wantsCommentTexts ? t.commentTexts : [];
        const postId = platform === 'instagram' ? p.id : `${node}_${p.id}`;
        const take = texts.slice(0, commentLimit);
        const commentFields = /comments[^,{]*\{([^}]*)\}/.exec(fields)?.[1] ?? '';
        const commentPaging = commentsPaging(postId, 0, commentLimit, texts.length, platform, commentFields);
        return platform === 'instagram'
          ? {
              id: p.id,
              timestamp: graphTime(p.at),
              like_count: likes,
              comments_count: comments,
              ...(wantsCommentTexts
                ? {
                    comments: {
                      data: take.map((c) => igComment(c, commentFields)),
                      ...commentPaging,
                    },
                  }
                : {}),
            }
          : {
              id: `${node}_${p.id}`,
              created_time: graphTime(p.at),
              shares: { count: first ? t.shares : 0 },
              reactions: { data: [], summary: { total_count: likes } },
              comments: {
                data: take.map((c) => ({ message: c.text, created_time: graphTime(c.at) })),
                summary: { total_count: comments },
                ...commentPaging,
              },
            };
      });
      return { data, paging: d >= low ? { cursors: { after: d }, next: next.href } : {} };
    }
    throw notFound(`${node}/${edge}`);
  }

  function api(platform: Platform, path: string, url: URL, origin: string, me: AccessToken): unknown {
    const q = url.searchParams;
    const day = today();
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const notFound = (what: string) =>
      new HttpError(404, { error: { message: `${what} not found`, code: 100 } });
    const byId = (id: string, prefix: string) => {
      if (!id.startsWith(prefix)) throw notFound(id);
      return account(platform, id.slice(prefix.length));
    };

    if (platform === 'instagram' || platform === 'facebook')
      return graphApi(platform, segments, q, origin, me, day);

    if (platform === 'tiktok') {
      // As the Business API: the business_id is the token's open_id, every field and endpoint needs
      // its scope, and refusals are HTTP 200 envelopes.
      const granted = new Set(me.scope.split(/[\s,]+/).filter(Boolean));
      const need = (scope: string) => {
        if (!granted.has(scope))
          throw tiktokError(40001, `No permission to operate: the access token lacks the scope ${scope}.`);
      };
      if (q.get('business_id') !== me.handle)
        throw tiktokError(40001, 'No permission to operate: business_id is not the authorized account.');
      const a = account(platform, me.handle);
      const ok = (data: unknown) => tiktokEnvelope(0, 'OK', data);
      let fields: string[];
      try {
        fields = JSON.parse(q.get('fields') ?? '[]') as string[];
        if (!Array.isArray(fields)) throw new Error('not an array');
      } catch {
        throw tiktokError(40002, 'fields must be a JSON array of strings');
      }
      if (path === '/business/business/get/') {
        for (const f of fields) {
          if (!TIKTOK_FIELD_SCOPES[f]) throw tiktokError(40002, `Invalid field: ${f}`);
          need(TIKTOK_FIELD_SCOPES[f]);
        }
        need('user.info.basic');
        const since = q.get('start_date') ?? addDays(day, -7);
        const until = q.get('end_date') ?? addDays(day, -1);
        if (!isCalendarDay(since) || !isCalendarDay(until) || since > until)
          throw tiktokError(
            40002,
            'start_date and end_date must be YYYY-MM-DD, start_date not after end_date',
          );
        if (since < addDays(day, -TIKTOK_LOOKBACK_DAYS))
          throw tiktokError(
            40002,
            `start_date is beyond the maximum lookback of ${TIKTOK_LOOKBACK_DAYS} days`,
          );
        const daily = ['followers_count', 'video_views', 'likes', 'comments', 'shares'].filter((f) =>
          fields.includes(f),
        );
        const pick = (m: DayMetrics, f: string) =>
          f === 'followers_count' ? m.followers : f === 'video_views' ? m.impressions : m[f as 'likes'];
        const profile: Record<string, unknown> = {
          display_name: `${a.handle} (simulated)`,
          profile_image: `https://cdn.example/${a.handle}.jpeg`,
          username: a.handle,
          bio_description: 'A simulated brand account',
          followers_count: a.followersOn(day),
        };
        return ok({
          ...Object.fromEntries(
            Object.entries(profile).filter(
              ([k]) => fields.includes(k) || k === 'display_name' || k === 'profile_image',
            ),
          ),
          ...(daily.length
            ? {
                metrics: a
                  .range(since, until, day)
                  .map((m) => ({ date: m.day, ...Object.fromEntries(daily.map((f) => [f, pick(m, f)])) })),
              }
            : {}),
        });
      }
      if (path === '/business/business/video/list/') {
        need('video.list');
        for (const f of fields) if (!['item_id', 'create_time'].includes(f)) need('video.insights');
        const cursor = Number(q.get('cursor')) || Date.parse(`${addDays(day, 1)}T00:00:00Z`);
        const max = Math.min(20, Math.max(1, Number(q.get('max_count')) || 10));
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
      if (path === '/business/business/comment/list/') {
        need('comment.list');
        // A video id is the account's numeric id, the post's day (YYYYMMDD) and its index that day.
        const video = /^(\d{4})(\d{2})(\d{2})(\d)$/.exec((q.get('video_id') ?? '').slice(a.numericId.length));
        const postDay = video ? `${video[1]}-${video[2]}-${video[3]}` : '';
        if (!q.get('video_id')?.startsWith(a.numericId) || !isCalendarDay(postDay))
          throw tiktokError(40007, 'The video does not exist.');
        const post = a.metrics(postDay).posts[Number(video![4])];
        if (!post || postDay > day) throw tiktokError(40007, 'The video does not exist.');
        const max = Math.min(30, Math.max(1, Number(q.get('max_count')) || 20));
        // Pages by `cursor` (the offset the previous page returned) while `has_more`.
        const from = Math.max(0, Math.floor(Number(q.get('cursor')) || 0));
        // The first video of a day holds its comment texts, as on the other simulated platforms.
        const texts = video![4] === '0' ? (a.postTotals(postDay, day)?.commentTexts ?? []) : [];
        return ok({
          comments: texts.slice(from, from + max).map((c, i) => ({
            comment_id: `${post.id}${from + i}`,
            video_id: post.id,
            create_time: String(unixSeconds(c.at)),
            text: c.text,
            likes: 0,
            replies: 0,
            owner: false,
            status: 'PUBLIC',
          })),
          cursor: Math.min(from + max, texts.length),
          has_more: texts.length > from + max,
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
      // As Google: each endpoint answers a token granted one of its scopes, else 403 insufficientPermissions.
      const granted = new Set(me.scope.split(/[ ,]+/));
      const need = (any: string[]) => {
        if (!any.some((scope) => granted.has(scope))) throw googleScopeRefusal(any.join(' '));
      };
      if (path === '/data/channels' || path === '/data/playlistItems') need(YOUTUBE_READ);
      if (path === '/data/commentThreads') need([`${YT}youtube.force-ssl`]);
      if (path === '/analytics/reports') {
        // reports.query needs an analytics scope, and youtube.readonly as well
        // (https://developers.google.com/youtube/analytics/reference/reports/query).
        need(YOUTUBE_ANALYTICS);
        need(YOUTUBE_READ);
      }
      if (path === '/data/channels' && q.get('id')) {
        // By id, as Google: an unknown id is an empty list, not an error.
        const id = q.get('id')!;
        const known = id.startsWith('UC') && /^[a-z0-9_.-]{1,60}$/.test(id.slice(2));
        return {
          kind: 'youtube#channelListResponse',
          pageInfo: { totalResults: known ? 1 : 0, resultsPerPage: 5 },
          ...(known ? { items: [channelOf(account(platform, id.slice(2)))] } : {}),
        };
      }
      if (path === '/data/commentThreads') {
        // The channel's comment threads, newest first, a page holding whole days (as playlistItems).
        if (q.get('part') !== 'snippet' && !q.get('part')?.split(',').includes('snippet'))
          throw new HttpError(400, { error: { code: 400, message: 'part must include snippet' } });
        const channelId = q.get('allThreadsRelatedToChannelId') ?? '';
        const a = byId(channelId, 'UC');
        const max = Math.min(100, Math.max(1, Number(q.get('maxResults')) || 20));
        const start = q.get('pageToken') && isCalendarDay(q.get('pageToken')!) ? q.get('pageToken')! : day;
        const items: unknown[] = [];
        let d = start;
        for (; d >= HISTORY_START && items.length < max; d = addDays(d, -1)) {
          const m = a.metrics(d);
          for (const [i, c] of [...m.commentTexts].reverse().entries()) {
            const id = `Ug${a.numericId}${d.replace(/-/g, '')}${i}`;
            const video = m.posts[0]?.id ?? `${a.numericId}`;
            items.push({
              kind: 'youtube#commentThread',
              id,
              snippet: {
                channelId,
                videoId: video,
                topLevelComment: {
                  kind: 'youtube#comment',
                  id,
                  snippet: {
                    channelId,
                    videoId: video,
                    textDisplay: c.text,
                    textOriginal: c.text,
                    authorDisplayName: '@viewer',
                    canRate: true,
                    viewerRating: 'none',
                    likeCount: 0,
                    publishedAt: c.at,
                    updatedAt: c.at,
                  },
                },
                canReply: true,
                totalReplyCount: 0,
                isPublic: true,
              },
            });
          }
        }
        return {
          kind: 'youtube#commentThreadListResponse',
          pageInfo: { totalResults: items.length, resultsPerPage: max },
          items,
          ...(d >= HISTORY_START ? { nextPageToken: d } : {}),
        };
      }
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
    const userById = /^\/api\/users\/([^/]+)$/.exec(path);
    if (userById) {
      // As X: an unknown id answers 200 with only errors[].
      const id = decodeURIComponent(userById[1]!);
      if (!/^x[a-z0-9_.-]{1,60}$/.test(id))
        return {
          errors: [
            {
              value: id,
              detail: `Could not find user with id: [${id}].`,
              title: 'Not Found Error',
              resource_type: 'user',
              parameter: 'id',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/resource-not-found',
            },
          ],
        };
      return userOf(account(platform, id.slice(1)));
    }
    const timeline = /^\/api\/users\/x([^/]+)\/(tweets|mentions)$/.exec(path);
    if (timeline) {
      const a = account(platform, decodeURIComponent(timeline[1]!));
      const since = utcDay(new Date(q.get('start_time') ?? `${addDays(day, -6)}T00:00:00Z`));
      // end_time is exclusive: the last day served is the one holding the instant before it.
      const until = utcDay(new Date(Date.parse(q.get('end_time') ?? `${addDays(day, 1)}T00:00:00Z`) - 1));
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
      case 'POST /_sim/crisis': {
        const from = body.from === undefined ? today() : String(body.from);
        const days = Number(body.days ?? 7);
        if (!isCalendarDay(from))
          throw new HttpError(422, { error: `from must be YYYY-MM-DD, got "${from}"` });
        if (!Number.isInteger(days) || days < 1 || days > 365)
          throw new HttpError(422, { error: 'days must be a whole number from 1 to 365' });
        return sim.stageCrisis(platformOf(body.platform), String(body.handle ?? ''), { from, days });
      }
      case 'POST /_sim/pod': {
        const from = body.from === undefined ? today() : String(body.from);
        const days = Number(body.days ?? 14);
        const members = Number(body.members ?? 20);
        if (!isCalendarDay(from))
          throw new HttpError(422, { error: `from must be YYYY-MM-DD, got "${from}"` });
        if (!Number.isInteger(days) || days < 1 || days > 365)
          throw new HttpError(422, { error: 'days must be a whole number from 1 to 365' });
        if (!Number.isInteger(members) || members < 1 || members > 500)
          throw new HttpError(422, { error: 'members must be a whole number from 1 to 500' });
        const platform = platformOf(body.platform);
        if (platform !== 'instagram')
          throw new HttpError(422, { error: 'pods are staged on instagram accounts (where they live)' });
        return sim.stagePod(platform, String(body.handle ?? ''), { from, days, members });
      }
      case 'POST /_sim/delete-comments': {
        const day = String(body.day ?? '');
        const count = Number(body.count);
        if (!isCalendarDay(day)) throw new HttpError(422, { error: `day must be YYYY-MM-DD, got "${day}"` });
        if (!Number.isInteger(count) || count < 1 || count > 1_000_000)
          throw new HttpError(422, { error: 'count must be a whole number from 1' });
        const platform = platformOf(body.platform);
        if (platform !== 'instagram' && platform !== 'facebook')
          throw new HttpError(422, { error: 'comments can be deleted on instagram and facebook posts' });
        return sim.deleteComments(platform, String(body.handle ?? ''), day, count);
      }
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
        if (path === '/oauth/authorize' && req.method === 'GET') return authorize(platform, url, res, origin);
        if (platform === 'tiktok' && path.startsWith('/oauth/') && req.method === 'POST') {
          const answer = await readBody(req).then((text) => tiktokToken(path, req, text));
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify(answer));
          return;
        }
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
          const given = f.answers.findIndex((a) => !a.path || path.startsWith(a.path));
          if (given >= 0) {
            const a = f.answers[given]!;
            a.times = (a.times ?? 1) - 1;
            if (a.times <= 0) f.answers.splice(given, 1);
            throw new HttpError(a.status, a.body ?? {}, a.headers ?? {});
          }
          if (platform === 'tiktok') tiktokFaults(f);
          if (f.burst429 > 0 && platform === 'youtube') {
            // Google throttles a spent daily quota with 403 quotaExceeded, without Retry-After: the quota
            // returns at midnight Pacific Time (https://developers.google.com/youtube/v3/docs/errors).
            f.burst429--;
            const message = 'The request cannot be completed because you have exceeded your quota.';
            throw new HttpError(403, {
              error: {
                code: 403,
                message,
                errors: [{ message, domain: 'youtube.quota', reason: 'quotaExceeded' }],
              },
            });
          }
          if (f.burst429 > 0 && platform === 'twitter') {
            // X answers 429 with its x-rate-limit-* headers, the reset in epoch seconds, and no
            // Retry-After (https://docs.x.com/x-api/fundamentals/rate-limits).
            f.burst429--;
            throw new HttpError(
              429,
              { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
              {
                'x-rate-limit-limit': '900',
                'x-rate-limit-remaining': '0',
                'x-rate-limit-reset': String(Math.ceil(now() / 1000) + f.retryAfterSeconds),
              },
            );
          }
          if (f.burst429 > 0) {
            f.burst429--;
            throw isMeta(platform)
              ? graphThrottle(platform, f.retryAfterSeconds)
              : new HttpError(
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
      if (patch.answers !== undefined) f.answers = faultAnswers(patch.answers);
      for (const key of Object.keys(DEFAULT_FAULTS) as Array<keyof Faults>) {
        const v = patch[key];
        if (v === undefined || key === 'answers') continue;
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
    issueTokens: (platform, handle, scope) => issue({ platform, handle, scope: scope ?? SCOPES[platform] }),
    deleteComments(platform, handle, day, count) {
      const post = account(platform, handle).metrics(day).posts[0];
      if (!post) throw new HttpError(422, { error: `${handle} has no post on ${day}` });
      const key = `${platform}:${post.id}`;
      const deleted = (deletedComments.get(key) ?? 0) + count;
      deletedComments.set(key, deleted);
      return { post_id: post.id, deleted };
    },
    stagePod(platform, handle, pod) {
      const key = `${platform}:${handle}`;
      const list = [...(pods.get(key) ?? []), pod];
      pods.set(key, list);
      return { pods: list };
    },
    stageCrisis(platform, handle, crisis) {
      const key = `${platform}:${handle}`;
      const list = [...(crises.get(key) ?? []), crisis];
      crises.set(key, list);
      return { crises: list };
    },
    setUser(platform, login, user) {
      users.set(`${platform}:${login.replace(/^@/, '').toLowerCase()}`, {
        ...(user.accounts ? { accounts: user.accounts.map((a) => a.toLowerCase()) } : {}),
        ...(user.declinedScopes ? { declinedScopes: [...user.declinedScopes] } : {}),
      });
    },
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
