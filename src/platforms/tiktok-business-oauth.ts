import * as oauth from 'oauth4webapi';
import type { PlatformEndpoints } from './oauth-config.ts';

/**
 * The token endpoints of the TikTok API for Business account-holder flow (TikTok Accounts API):
 * `POST /open_api/v1.3/tt_user/oauth2/token/`, `/refresh_token/` and `/revoke/`. They are not RFC 6749
 * endpoints: the request is a JSON body carrying the app's `client_id` and `client_secret` (form
 * encoding is refused), the authorization code is named `auth_code`, revocation takes the access token,
 * and every answer is an envelope `{code, message, request_id, data}` sent with HTTP 200, a non-zero
 * `code` being the error.
 * https://business-api.tiktok.com/portal/docs?id=1738084387220481 (as sns-sdks/python-tiktok
 * `pytiktok/business_account_api.py` and bububa/tiktok-business `api/ttuser/` call them).
 *
 * A refusal (a code TikTok gives for a bad code, token or client) is raised as oauth4webapi's
 * ResponseBodyError with the RFC 6749 5.2 error it amounts to (`invalid_grant`, `invalid_client`), so
 * the callers (connect's code exchange, the vault's refresh) handle it as they handle any platform's
 * refusal; throttling (40100), TikTok's 5xxxx codes, HTTP errors and unreadable answers are plain
 * errors: the endpoint is unwell, try again later.
 */

/** Envelope codes that mean "not now" rather than "no": the rate limit and TikTok's server errors. */
const RATE_LIMITED = 40100;
/** The app id and secret do not match (TikTok's "illegal access partner"). */
const BAD_CLIENT = 40101;

/** The refresh endpoint: the token endpoint's sibling `refresh_token/`. */
export function refreshUrl(tokenUrl: string): string {
  const url = new URL(tokenUrl);
  const path = url.pathname.replace(/(^|\/)token(\/?)$/, '$1refresh_token$2');
  if (path === url.pathname) {
    throw new Error(`cannot derive the TikTok refresh endpoint from ${tokenUrl} (it must end in token/)`);
  }
  url.pathname = path;
  return url.href;
}

/** The error a token endpoint answer amounts to, or the `data` of a successful one. */
async function call(
  e: PlatformEndpoints,
  url: string,
  body: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  if (!e.insecure && new URL(url).protocol !== 'https:') {
    throw new Error(`refusing to send TikTok client credentials to ${new URL(url).origin} over plain http`);
  }
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: { code?: unknown; message?: unknown; data?: unknown } | undefined;
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    json = undefined;
  }
  // The envelope's code decides, whatever the HTTP status; without one the endpoint is unwell.
  if (typeof json !== 'object' || json === null || typeof json.code !== 'number') {
    throw new Error(`TikTok token endpoint answered HTTP ${response.status} without an envelope`);
  }
  const message = typeof json.message === 'string' ? json.message.slice(0, 300) : '';
  if (json.code === 0) {
    if (!response.ok || typeof json.data !== 'object' || json.data === null) {
      throw new Error(`TikTok token endpoint answered code 0 with HTTP ${response.status} and no data`);
    }
    return json.data as Record<string, unknown>;
  }
  if (json.code === RATE_LIMITED || json.code >= 50000) {
    throw new Error(`TikTok token endpoint answered code ${json.code}: ${message}`);
  }
  throw new oauth.ResponseBodyError(`TikTok refused the request (code ${json.code})`, {
    cause: {
      error: json.code === BAD_CLIENT ? 'invalid_client' : 'invalid_grant',
      error_description: `code ${json.code}: ${message}`,
    },
    response,
  });
}

/** A token envelope's `data` as a token endpoint response (lifetimes in seconds, scopes comma-separated). */
function tokens(data: Record<string, unknown>): oauth.TokenEndpointResponse {
  const access = data.access_token;
  if (typeof access !== 'string' || !access) throw new Error('TikTok answered no access_token');
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const seconds = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  const answer: Record<string, string | number> = { access_token: access, token_type: 'bearer' };
  for (const [k, v] of [
    ['refresh_token', str(data.refresh_token)],
    ['scope', str(data.scope)],
    ['open_id', str(data.open_id)],
    ['expires_in', seconds(data.expires_in)],
  ] as const) {
    if (v !== undefined) answer[k] = v;
  }
  return answer as oauth.TokenEndpointResponse;
}

/** Exchanges the authorization code of the redirect for the account holder's tokens and `open_id`. */
export async function exchangeCode(
  e: PlatformEndpoints,
  code: string,
  redirectUri: string,
): Promise<oauth.TokenEndpointResponse> {
  const data = await call(
    e,
    e.tokenUrl,
    {
      client_id: e.clientId ?? '',
      client_secret: e.clientSecret ?? '',
      grant_type: 'authorization_code',
      auth_code: code,
      redirect_uri: redirectUri,
    },
    15_000,
  );
  return tokens(data);
}

/** A new access token (and refresh token: TikTok may rotate it) for a refresh token. */
export async function refresh(
  e: PlatformEndpoints,
  refreshToken: string,
): Promise<oauth.TokenEndpointResponse> {
  const data = await call(
    e,
    refreshUrl(e.tokenUrl),
    {
      client_id: e.clientId ?? '',
      client_secret: e.clientSecret ?? '',
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    },
    15_000,
  );
  return tokens(data);
}

/** Revokes the account holder's access token (and so the grant). */
export async function revoke(e: PlatformEndpoints, accessToken: string): Promise<void> {
  if (!e.revokeUrl) return;
  await call(
    e,
    e.revokeUrl,
    { client_id: e.clientId ?? '', client_secret: e.clientSecret ?? '', access_token: accessToken },
    5_000,
  );
}
