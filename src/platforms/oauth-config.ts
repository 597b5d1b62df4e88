import type * as oauth from 'oauth4webapi';
import type { Config } from '../infra/config.ts';
import type { Platform } from '../core/catalog.ts';
import {
  CONNECTORS,
  FACEBOOK_DIALOG_URL,
  GRAPH_API_VERSION,
  GRAPH_TOKEN_URL,
} from '../ingest/connectors/index.ts';
import { SIMULATOR_CLIENT_SECRET, simulatorClientId } from './simulator-client.ts';

/**
 * Where each platform's OAuth 2.0 authorization server and APIs are, and which client we are there.
 * Defaults are the real platforms' public endpoints; SIMULATOR_URL moves all of them to the simulator
 * (`<sim>/<platform>/oauth/...`, `<sim>/<platform>/<api>`); PLATFORM_<NAME>_* overrides any single one.
 */
export interface PlatformEndpoints {
  platform: Platform;
  authorizeUrl: string;
  tokenUrl: string;
  /** RFC 7009 revocation endpoint; null where the platform has none (revocation is skipped). */
  revokeUrl: string | null;
  /** Base URL per API name, as the platform's connector reads them. */
  apiBaseUrls: Record<string, string>;
  clientId: string | null;
  clientSecret: string | null;
  scopes: string[];
  /** null: derived from PUBLIC_URL (or the listen address) at request time. */
  redirectUri: string | null;
  /** Plain http is allowed only for loopback (the simulator) and explicit overrides in tests. */
  insecure: boolean;
  /**
   * The issuer the authorization server names in its redirects (`iss`, RFC 9207), which the callback
   * checks: the platform's own (`quirks.issuer`, else the token endpoint's origin), or the simulator's
   * `<sim>/<platform>` when the simulator stands in for the platform.
   */
  issuer: string;
  quirks: OAuthQuirks;
}

/**
 * Where a platform departs from plain OAuth 2.0. They belong to the platform, not to its endpoints:
 * the simulator speaks them too, so the same code path is tested.
 */
export interface OAuthQuirks {
  /** The name of the client id in the authorize URL and token/revoke requests (TikTok: `client_key`). */
  clientIdParam: 'client_id' | 'client_key';
  /** How scopes are joined in the authorize URL (Meta and TikTok: commas). */
  scopeSeparator: ' ' | ',';
  /**
   * Meta: the code gives a short-lived user token (about an hour, no refresh token), exchanged at
   * once for a long-lived one (about 60 days) with grant_type=fb_exchange_token.
   */
  longLivedExchange: boolean;
  /**
   * Meta: the account is a Page (or the Instagram business account linked to one), found in the
   * user's `/me/accounts`; `/me` is the person. Facebook Page data is read with the Page's token.
   */
  accountsVia: 'me' | 'me/accounts';
  /**
   * How our client authenticates at the token, refresh and revocation endpoints (RFC 6749 2.3.1):
   * `client_secret_post` (the secret in the form) or `client_secret_basic` (HTTP Basic). With no
   * secret configured the client is public and sends only its id.
   */
  clientAuth: 'client_secret_post' | 'client_secret_basic';
  /**
   * The issuer the platform names in its authorization responses (`iss`, RFC 9207), checked against
   * the one in the redirect; null: the token endpoint's origin.
   */
  issuer: string | null;
  /** Extra parameters the authorize URL needs on this platform (e.g. Google's offline access). */
  authorizeParams: Readonly<Record<string, string>>;
  /**
   * How the token, refresh and revocation endpoints are spoken: `oauth2` (RFC 6749/7009, through
   * oauth4webapi) or `tiktok-business` (the TikTok API for Business account-holder endpoints: JSON
   * bodies, `{code, message, data}` envelopes; src/platforms/tiktok-business-oauth.ts).
   */
  tokenProtocol: 'oauth2' | 'tiktok-business';
}

const PLAIN = {
  clientAuth: 'client_secret_post',
  issuer: null,
  authorizeParams: {},
  tokenProtocol: 'oauth2',
} as const;

/**
 * Meta's login dialog does not ask again for a permission the person declined before unless told to
 * (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow#reaskperms): a
 * reconnect after "Permissions Declined" must be able to grant it.
 */
const META_REREQUEST = { auth_type: 'rerequest' } as const;

export const OAUTH_QUIRKS: Record<Platform, OAuthQuirks> = {
  instagram: {
    ...PLAIN,
    clientIdParam: 'client_id',
    scopeSeparator: ',',
    longLivedExchange: true,
    accountsVia: 'me/accounts',
    authorizeParams: META_REREQUEST,
  },
  facebook: {
    ...PLAIN,
    clientIdParam: 'client_id',
    scopeSeparator: ',',
    longLivedExchange: true,
    accountsVia: 'me/accounts',
    authorizeParams: META_REREQUEST,
  },
  // TikTok API for Business, TikTok account holders: the authorize URL is TikTok's v2 one with the
  // Business app's id as `client_key`; the tokens come from the Business API's own endpoints.
  tiktok: {
    ...PLAIN,
    clientIdParam: 'client_key',
    scopeSeparator: ',',
    longLivedExchange: false,
    accountsVia: 'me',
    tokenProtocol: 'tiktok-business',
  },
  // Google: the authorization response carries iss=https://accounts.google.com; a refresh token is issued
  // only with access_type=offline, and again after the first consent only with prompt=consent
  // (https://developers.google.com/identity/protocols/oauth2/web-server#creatingclient).
  youtube: {
    ...PLAIN,
    issuer: 'https://accounts.google.com',
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
    clientIdParam: 'client_id',
    scopeSeparator: ' ',
    longLivedExchange: false,
    accountsVia: 'me',
  },
  // X: a confidential client authenticates to the token endpoints with HTTP Basic; a public client
  // (no secret) sends only its client_id, with PKCE
  // (https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token).
  twitter: {
    ...PLAIN,
    clientAuth: 'client_secret_basic',
    clientIdParam: 'client_id',
    scopeSeparator: ' ',
    longLivedExchange: false,
    accountsVia: 'me',
  },
};

interface Defaults {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string | null;
  scopes: string[];
}

/**
 * Facebook Login for Business permissions (https://developers.facebook.com/docs/permissions). Each needs
 * Advanced Access through App Review before anyone without a role on the app can grant it.
 * Instagram: the account and its media (instagram_basic), account and media insights
 * (instagram_manage_insights), the Pages listing the linked account (pages_show_list), Page data the
 * insights and comments edges require (pages_read_engagement), comment texts
 * (instagram_manage_comments), and Pages reached through a Business Manager role (business_management).
 */
const META_SCOPES_IG = [
  'instagram_basic',
  'instagram_manage_insights',
  'instagram_manage_comments',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
];
/**
 * Facebook Pages: the Pages (pages_show_list), Page posts and engagement (pages_read_engagement), Page
 * insights (read_insights) and other people's comments on the Page's posts (pages_read_user_content).
 */
const META_SCOPES_FB = [
  'pages_show_list',
  'pages_read_engagement',
  'read_insights',
  'pages_read_user_content',
];
/**
 * TikTok API for Business account-holder scopes the sync reads with (docs/ingestion.md "TikTok"):
 * display name and avatar, username, bio, audience totals, daily account insights, the video list and
 * the comments on the account's videos.
 */
const TIKTOK_BUSINESS_SCOPES = [
  'user.info.basic',
  'user.info.username',
  'user.info.profile',
  'user.info.stats',
  'user.insights',
  'video.list',
  'comment.list',
];

/** The real platforms (Meta's Graph has no RFC 7009 endpoint: its tokens lapse or are removed by the user). */
export const REAL_OAUTH: Record<Platform, Defaults> = {
  instagram: {
    authorizeUrl: FACEBOOK_DIALOG_URL,
    tokenUrl: GRAPH_TOKEN_URL,
    revokeUrl: null,
    scopes: META_SCOPES_IG,
  },
  facebook: {
    authorizeUrl: FACEBOOK_DIALOG_URL,
    tokenUrl: GRAPH_TOKEN_URL,
    revokeUrl: null,
    scopes: META_SCOPES_FB,
  },
  // The refresh endpoint is the token endpoint's sibling `refresh_token/` (tiktok-business-oauth.ts).
  tiktok: {
    authorizeUrl: 'https://www.tiktok.com/v2/auth/authorize/',
    tokenUrl: 'https://business-api.tiktok.com/open_api/v1.3/tt_user/oauth2/token/',
    revokeUrl: 'https://business-api.tiktok.com/open_api/v1.3/tt_user/oauth2/revoke/',
    scopes: TIKTOK_BUSINESS_SCOPES,
  },
  youtube: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    revokeUrl: 'https://oauth2.googleapis.com/revoke',
    // youtube.readonly: channels and uploads (and reports.query requires it too); yt-analytics.readonly:
    // the day report; youtube.force-ssl: commentThreads.list, whose only scope it is.
    scopes: [
      'https://www.googleapis.com/auth/youtube.readonly',
      'https://www.googleapis.com/auth/yt-analytics.readonly',
      'https://www.googleapis.com/auth/youtube.force-ssl',
    ],
  },
  twitter: {
    authorizeUrl: 'https://x.com/i/oauth2/authorize',
    tokenUrl: 'https://api.x.com/2/oauth2/token',
    revokeUrl: 'https://api.x.com/2/oauth2/revoke',
    scopes: ['tweet.read', 'users.read', 'offline.access'],
  },
};

export function platformEndpoints(config: Config, platform: Platform): PlatformEndpoints {
  const o = config.platformOAuth[platform];
  const sim = config.simulatorUrl?.replace(/\/+$/, '') ?? null;
  const real = REAL_OAUTH[platform];
  const def: Defaults = sim
    ? {
        authorizeUrl: `${sim}/${platform}/oauth/authorize`,
        tokenUrl: `${sim}/${platform}/oauth/token`,
        revokeUrl: `${sim}/${platform}/oauth/revoke`,
        scopes: real.scopes,
      }
    : real;
  const apiBaseUrls: Record<string, string> = {};
  for (const [api, url] of Object.entries(CONNECTORS[platform].defaultBaseUrls)) {
    const base = o.apiUrl ?? (sim ? `${sim}/${platform}` : null);
    // The simulator serves Graph under the version Meta's URLs carry, as graph.facebook.com does.
    const version =
      sim && !o.apiUrl && OAUTH_QUIRKS[platform].longLivedExchange ? `/${GRAPH_API_VERSION}` : '';
    apiBaseUrls[api] = base ? `${base.replace(/\/+$/, '')}/${api}${version}` : url;
  }
  return {
    platform,
    authorizeUrl: o.authorizeUrl ?? def.authorizeUrl,
    tokenUrl: o.tokenUrl ?? def.tokenUrl,
    revokeUrl: o.revokeUrl ?? def.revokeUrl,
    apiBaseUrls,
    clientId: o.clientId ?? (sim ? simulatorClientId(platform) : null),
    // An operator's own client id without a secret is a public client (PKCE only), simulator or not.
    clientSecret: o.clientSecret ?? (sim && !o.clientId ? SIMULATOR_CLIENT_SECRET : null),
    scopes: o.scopes ?? def.scopes,
    redirectUri: o.redirectUri,
    insecure: sim !== null || [o.authorizeUrl, o.tokenUrl, o.revokeUrl].some((u) => u?.startsWith('http:')),
    // The simulator names itself per platform; a real platform by its documented issuer.
    issuer:
      sim && !o.authorizeUrl
        ? `${sim}/${platform}`
        : (OAUTH_QUIRKS[platform].issuer ?? new URL(o.tokenUrl ?? def.tokenUrl).origin),
    quirks: OAUTH_QUIRKS[platform],
  };
}

/** oauth4webapi's view of a platform's authorization server and of our client there. */
export function oauthParties(e: PlatformEndpoints): {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
} {
  return {
    as: {
      issuer: e.issuer,
      authorization_endpoint: e.authorizeUrl,
      token_endpoint: e.tokenUrl,
      ...(e.revokeUrl ? { revocation_endpoint: e.revokeUrl } : {}),
    },
    client: { client_id: e.clientId ?? '' },
  };
}
