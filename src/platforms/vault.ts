import * as oauth from 'oauth4webapi';
import type { Kysely, Selectable } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB, PlatformConnectionsTable } from '../infra/db/types.ts';
import { KeyRingError, type KeyRing, type Sealed } from '../infra/crypto/keyring.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import type { Platform } from '../core/catalog.ts';
import { oauthParties, platformEndpoints, type PlatformEndpoints } from './oauth-config.ts';
import * as tiktokBusiness from './tiktok-business-oauth.ts';
import { isConnected } from '../ingest/connection-state.ts';
import { stateSlot } from '../infra/state.ts';

/**
 * The token vault: platform access and refresh tokens, sealed at rest with the key ring (purpose
 * `platform-token`, bound to the row and column that hold them: a connection, or a connect attempt
 * waiting for the brand to pick an account). Tokens leave this module only as the return value of getAccessToken, to be put
 * in the Authorization header of a platform request; errors never carry them.
 */

/** Refresh this long before the access token expires, so a sync never starts with a dying token. */
export const REFRESH_MARGIN_MS = 60_000;

/** The platform refused the refresh token (invalid_grant, revoked consent): a person must reconnect. */
export class ReauthRequired extends Error {
  override name = 'ReauthRequired';
  readonly connectionId: string;
  readonly platform: Platform;
  /** The health reason to record, when not the refused refresh the sync assumes. */
  readonly healthReason: 'token_refused' | null;
  constructor(
    connectionId: string,
    platform: Platform,
    reason: string,
    healthReason: 'token_refused' | null = null,
  ) {
    super(`${platform} connection ${connectionId} needs re-authorisation: ${reason}`);
    this.connectionId = connectionId;
    this.platform = platform;
    this.healthReason = healthReason;
  }
}

/** The platform's token endpoint failed in a way worth retrying later (network, 5xx, 429). */
export class TokenRefreshFailed extends Error {
  override name = 'TokenRefreshFailed';
  readonly connectionId: string;
  readonly platform: Platform;
  /** The token endpoint's HTTP status when it answered (null: network, timeout, no client configured). */
  readonly status: number | null;
  constructor(connectionId: string, platform: Platform, reason: string, status: number | null = null) {
    super(`${platform} connection ${connectionId}: token refresh failed: ${reason}`);
    this.connectionId = connectionId;
    this.platform = platform;
    this.status = status;
  }
  /** The platform's token endpoint is down (network, timeout, 5xx), as opposed to refusing this request. */
  get platformDown(): boolean {
    return this.status === null || this.status >= 500;
  }
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string | null;
}

/** The row that holds a token set: a connection (its id) or a connect attempt (its state hash). */
export interface TokenHome {
  table: 'platform_connections' | 'oauth_states';
  row: string;
}

/** Column values for a token set, sealed under the active key, bound to the row that keeps them. */
export function sealTokens(keyRing: KeyRing, t: TokenSet, home: TokenHome) {
  const access = keyRing.seal(t.accessToken, sealedAt(`${home.table}.access_token`, home.row));
  const refresh = t.refreshToken
    ? keyRing.seal(t.refreshToken, sealedAt(`${home.table}.refresh_token`, home.row))
    : null;
  return {
    access_token: access.ciphertext,
    access_token_key_id: access.keyId,
    refresh_token: refresh?.ciphertext ?? null,
    refresh_token_key_id: refresh?.keyId ?? null,
    token_expires_at: t.expiresAt,
    scopes: t.scopes,
  };
}

/** A token endpoint answer as a token set; a refresh answer without a new refresh token keeps the old one. */
export function tokenSet(
  r: oauth.TokenEndpointResponse,
  now: Date,
  previousRefresh: string | null = null,
): TokenSet {
  return {
    accessToken: r.access_token,
    refreshToken: r.refresh_token ?? previousRefresh,
    expiresAt: typeof r.expires_in === 'number' ? new Date(now.getTime() + r.expires_in * 1000) : null,
    scopes: typeof r.scope === 'string' ? r.scope : null,
  };
}

export function oauthOptions(e: PlatformEndpoints, timeoutMs = 15_000) {
  return {
    ...(e.insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  };
}

export function clientAuth(e: PlatformEndpoints): oauth.ClientAuth {
  if (e.quirks.clientIdParam === 'client_key') {
    // TikTok: client_secret_post, but the id is named client_key (it refuses client_id).
    const secret = e.clientSecret;
    return (_as, client, body) => {
      body.set('client_key', client.client_id);
      if (secret) body.set('client_secret', secret);
    };
  }
  if (!e.clientSecret) return oauth.None();
  if (e.quirks.clientAuth === 'client_secret_post') return oauth.ClientSecretPost(e.clientSecret);
  // HTTP Basic, and the client_id in the form as well, as X's token requests carry it
  // (https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token).
  const basic = oauth.ClientSecretBasic(e.clientSecret);
  return (as, client, body, headers) => {
    basic(as, client, body, headers);
    body.set('client_id', client.client_id);
  };
}

/** A refusal of the grant itself (as opposed to the endpoint being unwell). */
function isGrantRefusal(error: unknown): string | null {
  if (error instanceof oauth.ResponseBodyError) {
    if (['invalid_grant', 'unauthorized_client', 'invalid_client', 'access_denied'].includes(error.error))
      return error.error;
  }
  return null;
}

/** Per service: the refresh under way for a connection, which concurrent callers share. */
const IN_FLIGHT = stateSlot('platforms.token-refresh-in-flight', () => new Map<string, Promise<string>>());

/**
 * A usable access token for a live connection, refreshed first when it expires within
 * REFRESH_MARGIN_MS. A refused refresh moves the connection to `reauth_required` and throws
 * ReauthRequired; a failing token endpoint throws TokenRefreshFailed (retry later). Two instances
 * refreshing at once are reconciled on the stored ciphertext: the loser adopts the winner's token.
 */
export async function getAccessToken(
  ctx: AppContext,
  connectionId: string,
  known?: TokenRow,
): Promise<string> {
  const inFlight = ctx.state.get(IN_FLIGHT);
  const running = inFlight.get(connectionId);
  if (running) return running;
  const p = accessToken(ctx, connectionId, 0, known).finally(() => inFlight.delete(connectionId));
  inFlight.set(connectionId, p);
  return p;
}

/** The columns getAccessToken reads: a caller that read them already (a sync job's claim) passes them. */
export const TOKEN_COLUMNS = [
  'id',
  'platform',
  'status',
  'access_token',
  'access_token_key_id',
  'refresh_token',
  'refresh_token_key_id',
  'token_expires_at',
] as const;
export type TokenRow = Pick<Selectable<PlatformConnectionsTable>, (typeof TOKEN_COLUMNS)[number]>;

async function readConnection(db: Kysely<DB>, connectionId: string): Promise<TokenRow | undefined> {
  return db
    .selectFrom('platform_connections')
    .select(TOKEN_COLUMNS)
    .where('id', '=', connectionId)
    .executeTakeFirst();
}

async function accessToken(
  ctx: AppContext,
  connectionId: string,
  attempt = 0,
  known?: TokenRow,
): Promise<string> {
  const row = known ?? (await readConnection(ctx.db, connectionId));
  if (!row) throw new Error(`platform connection ${connectionId} does not exist`);
  if (row.status === 'reauth_required') throw new ReauthRequired(row.id, row.platform, 'refused earlier');
  if (row.status !== 'connected') throw new ReauthRequired(row.id, row.platform, 'disconnected');
  if (!row.access_token || !row.access_token_key_id)
    throw new ReauthRequired(row.id, row.platform, 'no token on file (not connected through OAuth)');
  const now = ctx.now();
  const fresh = !row.token_expires_at || row.token_expires_at.getTime() - now.getTime() > REFRESH_MARGIN_MS;
  if (fresh || !row.refresh_token || !row.refresh_token_key_id) {
    // Without a refresh token an expired access token is still tried: the platform's 401 is the answer.
    return openConnectionToken(ctx.keyRing, row, 'access_token', {
      ciphertext: row.access_token,
      keyId: row.access_token_key_id,
    });
  }
  const refreshToken = openConnectionToken(ctx.keyRing, row, 'refresh_token', {
    ciphertext: row.refresh_token,
    keyId: row.refresh_token_key_id,
  });
  const e = platformEndpoints(ctx.config, row.platform);
  if (!e.clientId) throw new TokenRefreshFailed(row.id, row.platform, 'no OAuth client configured');
  const { as, client } = oauthParties(e);
  let set: TokenSet;
  try {
    const answer =
      e.quirks.tokenProtocol === 'tiktok-business'
        ? await tiktokBusiness.refresh(e, refreshToken)
        : await oauth.processRefreshTokenResponse(
            as,
            client,
            await oauth.refreshTokenGrantRequest(as, client, clientAuth(e), refreshToken, oauthOptions(e)),
          );
    set = tokenSet(answer, now, refreshToken);
  } catch (error) {
    const refusal = isGrantRefusal(error);
    if (!refusal) {
      const status = error instanceof oauth.ResponseBodyError ? error.status : null;
      throw new TokenRefreshFailed(
        row.id,
        row.platform,
        `${(error as Error).name}${status === null ? '' : ` (HTTP ${status})`}`,
        status,
      );
    }
    const moved = await ctx.db
      .updateTable('platform_connections')
      .set({ status: 'reauth_required', reauth_at: now })
      .where('id', '=', row.id)
      .where(isConnected)
      .where('refresh_token', '=', row.refresh_token)
      .executeTakeFirst();
    if (!moved.numUpdatedRows && attempt === 0) return accessToken(ctx, connectionId, 1);
    throw new ReauthRequired(row.id, row.platform, refusal);
  }
  const updated = await ctx.db
    .updateTable('platform_connections')
    .set(sealTokens(ctx.keyRing, set, { table: 'platform_connections', row: row.id }))
    .where('id', '=', row.id)
    .where(isConnected)
    .where('refresh_token', '=', row.refresh_token)
    .executeTakeFirst();
  // Another instance refreshed first (or the connection changed): use what is stored now.
  if (!updated.numUpdatedRows && attempt === 0) return accessToken(ctx, connectionId, 1);
  return set.accessToken;
}

/**
 * The platform refused an access token the vault handed out (ConnectorError.tokenRefused: expired,
 * like Meta's ~60-day long-lived token, which cannot be refreshed, or revoked). With a refresh token
 * the stored token is marked expired, so the next getAccessToken refreshes it. Without one nobody
 * can renew it: the connection moves to reauth_required, as for a refused refresh, and
 * ReauthRequired is thrown. `used` is the token row the refused token was opened from; a token
 * replaced since (another instance refreshed) is left alone.
 */
export async function accessTokenRefused(ctx: AppContext, used: TokenRow): Promise<void> {
  if (!used.access_token) return;
  const now = ctx.now();
  const stored = ctx.db
    .updateTable('platform_connections')
    .where('id', '=', used.id)
    .where(isConnected)
    .where('access_token', '=', used.access_token);
  if (used.refresh_token) {
    await stored.set({ token_expires_at: now }).execute();
    return;
  }
  await stored.set({ status: 'reauth_required', reauth_at: now }).execute();
  throw new ReauthRequired(used.id, used.platform, 'the platform refused the access token');
}

/**
 * A connection's stored token. One that does not open in this connection's row (copied from another
 * row, or altered; the key ring logs it) is never used: the connection needs reconnecting.
 */
export function openConnectionToken(
  keyRing: KeyRing,
  row: { id: string; platform: Platform },
  column: 'access_token' | 'refresh_token',
  sealed: Sealed,
): string {
  try {
    return keyRing.open(sealed, sealedAt(`platform_connections.${column}`, row.id));
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error;
    throw new ReauthRequired(
      row.id,
      row.platform,
      `the ${column.replace('_', ' ')} on file does not open for this connection`,
      'token_refused',
    );
  }
}
