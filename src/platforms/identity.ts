import { ApiClient, CONNECTORS, ConnectorError, type PlatformAnswer } from '../ingest/connectors/index.ts';
import type { Platform } from '../core/catalog.ts';
import type { PlatformEndpoints } from './oauth-config.ts';

/** An account the authorised login may connect, as its platform describes it. */
export interface AccountCandidate {
  accountId: string;
  /** What the connector addresses the account by (TikTok: the business id). */
  handle: string;
  /** The account's display name, to choose by. */
  name: string;
  followers: number;
  /** The token to read the account with when it is not the user's (a Facebook Page's own token). */
  accessToken?: string;
}

/** At most this many pages of accounts are read (Graph: 100 a page; YouTube: 50). */
const MAX_ACCOUNT_PAGES = 20;

const n = (v: unknown) => {
  const x = typeof v === 'string' ? Number(v) : v;
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.round(x) : 0;
};

function client(e: PlatformEndpoints, accessToken: string, fetchImpl: typeof fetch): ApiClient {
  const platform: Platform = e.platform;
  return new ApiClient({
    platform,
    baseUrls: e.apiBaseUrls,
    headers: CONNECTORS[platform].authHeaders(accessToken),
    timeoutMs: 15_000,
    maxBytes: 1024 * 1024,
    fetch: fetchImpl,
    ...(CONNECTORS[platform].readFault
      ? { readFault: (a: PlatformAnswer) => CONNECTORS[platform].readFault!(a) }
      : {}),
  });
}

/**
 * Every account the new access token may connect, from each platform's "who am I" endpoint: Graph
 * `/me/accounts` (every Page, paginated: Facebook the Pages, Instagram the business accounts linked
 * to them), YouTube `channels?mine=true` (paginated), X `/users/me`, TikTok `business/get` with the
 * token's open_id. Empty when the login manages none.
 */
export async function listAccounts(
  e: PlatformEndpoints,
  accessToken: string,
  token: { open_id?: unknown },
  fetchImpl: typeof fetch = fetch,
): Promise<AccountCandidate[]> {
  const platform: Platform = e.platform;
  const api = client(e, accessToken, fetchImpl);
  const fail = (what: string): never => {
    throw new ConnectorError(platform, `the platform did not describe the authorised account (${what})`);
  };
  switch (platform) {
    case 'instagram':
    case 'facebook': {
      if (e.quirks.accountsVia === 'me/accounts') return metaAccounts(api, platform);
      const me = await api.get<Record<string, unknown>>('graph', '/me', {
        fields: 'id,username,name,followers_count,fan_count',
      });
      const handle = String(me.username ?? me.id ?? '') || fail('no username');
      return [
        {
          accountId: String(me.id ?? handle),
          handle,
          name: String(me.name ?? handle),
          followers: n(me.followers_count ?? me.fan_count),
        },
      ];
    }
    case 'youtube':
      return youtubeChannels(api);
    case 'twitter': {
      const me = await api.get<{ data?: Record<string, any> }>('api', '/users/me', {
        'user.fields': 'public_metrics',
      });
      const handle = String(me.data?.username ?? '') || fail('no username');
      return [
        {
          accountId: String(me.data!.id),
          handle,
          name: String(me.data!.name ?? handle),
          followers: n(me.data!.public_metrics?.followers_count),
        },
      ];
    }
    case 'tiktok': {
      // The business_id of the Business API is the token's open_id; the handle shown is the username.
      // Envelope errors (code != 0) are raised by the connector's readFault.
      const businessId = typeof token.open_id === 'string' ? token.open_id : fail('no open_id in the token');
      const got = await api.get<{ data?: Record<string, unknown> }>('business', '/business/get/', {
        business_id: businessId,
        fields: JSON.stringify(['username', 'followers_count']),
      });
      if (!got.data) fail('no account data');
      const handle =
        typeof got.data!.username === 'string' && got.data!.username ? got.data!.username : businessId;
      return [{ accountId: businessId, handle, name: handle, followers: n(got.data!.followers_count) }];
    }
  }
}

/**
 * The permissions the person granted, where the token answer does not say: Meta's token endpoint
 * answers no `scope`, and the login dialog lets the person untick permissions, so Graph
 * `GET /me/permissions` is asked and the entries with `status: "granted"` are kept
 * (https://developers.facebook.com/docs/graph-api/reference/user/permissions/). Elsewhere the token
 * answer's `scope` is the granted set, and its absence means exactly what was asked (RFC 6749 5.1).
 * null: not known (the permissions endpoint failed).
 */
export async function grantedScopes(
  e: PlatformEndpoints,
  accessToken: string,
  token: { scope?: unknown },
  fetchImpl: typeof fetch = fetch,
): Promise<string[] | null> {
  if (e.quirks.accountsVia === 'me/accounts') {
    try {
      const answer = await client(e, accessToken, fetchImpl).get<{
        data?: Array<{ permission?: unknown; status?: unknown }>;
      }>('graph', '/me/permissions', {});
      const list = Array.isArray(answer.data) ? answer.data : [];
      return list
        .filter((p) => p.status === 'granted' && typeof p.permission === 'string')
        .map((p) => String(p.permission));
    } catch (error) {
      if (error instanceof ConnectorError) return null;
      throw error;
    }
  }
  if (typeof token.scope !== 'string') return [...e.scopes];
  return token.scope.split(/[\s,]+/).filter(Boolean);
}

interface MetaPage {
  id?: unknown;
  name?: unknown;
  username?: unknown;
  access_token?: unknown;
  fan_count?: unknown;
  followers_count?: unknown;
  instagram_business_account?: {
    id?: unknown;
    username?: unknown;
    name?: unknown;
    followers_count?: unknown;
  };
}

/**
 * Meta's accounts are the Pages the person manages, listed by /me/accounts (each with its token),
 * 100 a page, following `paging.next` (https://developers.facebook.com/docs/graph-api/results), and
 * the Instagram business accounts linked to them. Facebook connects a Page (read with the Page's own
 * token), Instagram a business account.
 */
async function metaAccounts(api: ApiClient, platform: 'instagram' | 'facebook'): Promise<AccountCandidate[]> {
  type Listing = { data?: MetaPage[]; paging?: { next?: unknown } };
  const pages: MetaPage[] = [];
  let answer = await api.get<Listing>('graph', '/me/accounts', {
    fields:
      'id,name,username,access_token,fan_count,followers_count,instagram_business_account{id,username,name,followers_count}',
    limit: 100,
  });
  for (let read = 1; ; read++) {
    if (Array.isArray(answer.data)) pages.push(...answer.data);
    const next = answer.paging?.next;
    if (typeof next !== 'string' || !answer.data?.length || read >= MAX_ACCOUNT_PAGES) break;
    answer = await api.follow<Listing>('graph', next);
  }
  const out: AccountCandidate[] = [];
  for (const page of pages) {
    if (platform === 'instagram') {
      const ig = page.instagram_business_account;
      if (!ig?.id || !ig.username) continue;
      out.push({
        accountId: String(ig.id),
        handle: String(ig.username),
        name: String(ig.name ?? page.name ?? ig.username),
        followers: n(ig.followers_count),
      });
      continue;
    }
    const handle = String(page.username ?? page.id ?? '');
    if (!handle || typeof page.access_token !== 'string' || !page.access_token) continue;
    out.push({
      accountId: String(page.id ?? handle),
      handle,
      name: String(page.name ?? handle),
      followers: n(page.followers_count ?? page.fan_count),
      accessToken: page.access_token,
    });
  }
  return out;
}

/**
 * The channels of the authorised Google account (`channels.list?mine=true`, 50 a page, following
 * `nextPageToken`: https://developers.google.com/youtube/v3/docs/channels/list). A channel without a
 * handle (`snippet.customUrl`) cannot be addressed by the connector and is left out.
 */
async function youtubeChannels(api: ApiClient): Promise<AccountCandidate[]> {
  const out: AccountCandidate[] = [];
  let pageToken: string | undefined;
  for (let read = 0; read < MAX_ACCOUNT_PAGES; read++) {
    const list = await api.get<{ items?: Array<Record<string, any>>; nextPageToken?: unknown }>(
      'data',
      '/channels',
      { part: 'snippet,statistics', mine: 'true', maxResults: 50, pageToken },
    );
    for (const ch of list.items ?? []) {
      const handle = String(ch.snippet?.customUrl ?? '').replace(/^@/, '');
      if (!handle || !ch.id) continue;
      out.push({
        accountId: String(ch.id),
        handle,
        name: String(ch.snippet?.title ?? handle),
        followers: n(ch.statistics?.subscriberCount),
      });
    }
    if (typeof list.nextPageToken !== 'string' || !list.items?.length) break;
    pageToken = list.nextPageToken;
  }
  return out;
}
