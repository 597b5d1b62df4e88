import { ApiClient, CONNECTORS, ConnectorError, type PlatformAnswer } from '../ingest/connectors/index.ts';
import type { Platform } from '../core/catalog.ts';
import type { PlatformEndpoints } from './oauth-config.ts';

/** The authorised account as its platform describes it: what a new connection stores. */
export interface AccountIdentity {
  accountId: string;
  /** What the connector addresses the account by (TikTok: the business id). */
  handle: string;
  followers: number;
  /** The token to read the account with when it is not the user's (a Facebook Page's own token). */
  accessToken?: string;
}

const n = (v: unknown) => {
  const x = typeof v === 'string' ? Number(v) : v;
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 ? Math.round(x) : 0;
};

/**
 * Reads the authorised account's handle and audience with the new access token, from each
 * platform's "who am I" endpoint (Graph /me, YouTube channels?mine=true, X /users/me, TikTok
 * business/get with the token's open_id).
 */
export async function identify(
  e: PlatformEndpoints,
  accessToken: string,
  token: { open_id?: unknown },
  fetchImpl: typeof fetch = fetch,
): Promise<AccountIdentity> {
  const platform: Platform = e.platform;
  const api = new ApiClient({
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
  const fail = (what: string): never => {
    throw new ConnectorError(platform, `the platform did not describe the authorised account (${what})`);
  };
  switch (platform) {
    case 'instagram':
    case 'facebook': {
      if (e.quirks.accountsVia === 'me/accounts') return metaAccount(api, platform, fail);
      const me = await api.get<Record<string, unknown>>('graph', '/me', {
        fields: 'id,username,name,followers_count,fan_count',
      });
      const handle = String(me.username ?? me.id ?? '') || fail('no username');
      return { accountId: String(me.id ?? handle), handle, followers: n(me.followers_count ?? me.fan_count) };
    }
    case 'youtube': {
      const list = await api.get<{ items?: Array<Record<string, any>> }>('data', '/channels', {
        part: 'snippet,statistics',
        mine: 'true',
      });
      const ch = list.items?.[0] ?? fail('no channel');
      const handle = String(ch.snippet?.customUrl ?? '').replace(/^@/, '') || fail('no handle');
      return { accountId: String(ch.id), handle, followers: n(ch.statistics?.subscriberCount) };
    }
    case 'twitter': {
      const me = await api.get<{ data?: Record<string, any> }>('api', '/users/me', {
        'user.fields': 'public_metrics',
      });
      const handle = String(me.data?.username ?? '') || fail('no username');
      return {
        accountId: String(me.data!.id),
        handle,
        followers: n(me.data!.public_metrics?.followers_count),
      };
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
      return { accountId: businessId, handle, followers: n(got.data!.followers_count) };
    }
  }
}

interface MetaPage {
  id?: unknown;
  name?: unknown;
  username?: unknown;
  access_token?: unknown;
  fan_count?: unknown;
  followers_count?: unknown;
  instagram_business_account?: { id?: unknown; username?: unknown; followers_count?: unknown };
}

/**
 * Meta's accounts are Pages the user manages, listed by /me/accounts (with each Page's token), and
 * Instagram business accounts linked to them. The first Page (Facebook) or the first Page with an
 * Instagram business account (Instagram) is the one connected.
 */
async function metaAccount(
  api: ApiClient,
  platform: 'instagram' | 'facebook',
  fail: (what: string) => never,
): Promise<AccountIdentity> {
  const pages = await api.get<{ data?: MetaPage[] }>('graph', '/me/accounts', {
    fields:
      'id,name,username,access_token,fan_count,followers_count,instagram_business_account{id,username,followers_count}',
  });
  const list = Array.isArray(pages.data) ? pages.data : [];
  if (platform === 'instagram') {
    const ig = list.find((p) => p.instagram_business_account?.id)?.instagram_business_account;
    if (!ig) return fail('no Instagram business account linked to a Page');
    const handle = String(ig.username ?? '') || fail('no username');
    return { accountId: String(ig.id), handle, followers: n(ig.followers_count) };
  }
  const page = list[0] ?? fail('no Page');
  const handle = String(page.username ?? page.id ?? '') || fail('no Page id');
  const token =
    typeof page.access_token === 'string' && page.access_token ? page.access_token : fail('no Page token');
  return {
    accountId: String(page.id ?? handle),
    handle,
    followers: n(page.followers_count ?? page.fan_count),
    accessToken: token,
  };
}
