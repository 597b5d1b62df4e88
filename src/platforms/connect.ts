import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { OAUTH_VERIFIER_PURPOSE, PLATFORM_TOKEN_PURPOSE } from '../infra/crypto/sealed-columns.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { PLAN_LIMITS, type Plan, type Platform } from '../core/catalog.ts';
import { ConnectorError } from '../ingest/connectors/index.ts';
import { SYNC_STATE_CLEAN } from '../ingest/sync.ts';
import { identify } from './identity.ts';
import { oauthParties, platformEndpoints, type PlatformEndpoints } from './oauth-config.ts';
import * as tiktokBusiness from './tiktok-business-oauth.ts';
import { clientAuth, oauthOptions, sealTokens, tokenSet } from './vault.ts';

/** How long an authorisation URL (its state) stays usable. */
export const STATE_TTL_MS = 10 * 60_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

function configured(ctx: AppContext, platform: Platform): PlatformEndpoints {
  const e = platformEndpoints(ctx.config, platform);
  if (!e.clientId) {
    throw new DomainError(
      'platform_not_configured',
      `This service has no OAuth client for ${platform}: the operator sets PLATFORM_${platform.toUpperCase()}_CLIENT_ID and _CLIENT_SECRET (or SIMULATOR_URL).`,
    );
  }
  return e;
}

/** Connections that count against platform_limit: every one not disconnected. */
async function liveConnections(db: Kysely<DB>, workspaceId: string) {
  return db
    .selectFrom('platform_connections')
    .select(['id', 'platform', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('status', '<>', 'disconnected')
    .execute();
}

function checkConnectable(
  live: Array<{ platform: Platform; status: string }>,
  plan: Plan,
  platform: Platform,
): void {
  const existing = live.find((c) => c.platform === platform);
  if (existing?.status === 'connected') {
    throw new DomainError(
      'platform_already_connected',
      `${platform} is already connected to this workspace; disconnect it first (DELETE /v1/platforms/${platform}).`,
    );
  }
  const limit = PLAN_LIMITS[plan].platformLimit;
  // A connection waiting for re-authorisation already holds its place.
  if (!existing && limit !== null && live.length >= limit) {
    throw new DomainError(
      'platform_limit_reached',
      `The ${plan} plan allows ${limit} connected platform${limit === 1 ? '' : 's'}; disconnect one or upgrade.`,
    );
  }
}

/**
 * Starts an authorisation: a PKCE verifier (sealed) and a random state (stored as its hash) bound
 * to the workspace, the platform and the API key, valid STATE_TTL_MS; returns the platform's URL.
 */
export async function startConnect(
  ctx: AppContext,
  input: { workspaceId: string; plan: Plan; keyId: string; platform: Platform; origin: string },
): Promise<{ authorizationUrl: string; expiresAt: Date }> {
  const { platform } = input;
  const e = configured(ctx, platform);
  checkConnectable(await liveConnections(ctx.db, input.workspaceId), input.plan, platform);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = e.redirectUri ?? `${input.origin}/v1/platforms/${platform}/callback`;
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + STATE_TTL_MS);
  const sealed = ctx.keyRing.seal(verifier, OAUTH_VERIFIER_PURPOSE);
  await ctx.db
    .insertInto('oauth_states')
    .values({
      state_hash: sha256(state),
      workspace_id: input.workspaceId,
      platform,
      owner_key_id: input.keyId,
      code_verifier: sealed.ciphertext,
      code_verifier_key_id: sealed.keyId,
      redirect_uri: redirectUri,
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  const url = new URL(e.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set(e.quirks.clientIdParam, e.clientId!);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', e.scopes.join(e.quirks.scopeSeparator));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  for (const [name, value] of Object.entries(e.quirks.authorizeParams)) url.searchParams.set(name, value);
  return { authorizationUrl: url.href, expiresAt };
}

const invalidState = () =>
  new DomainError(
    'invalid_state',
    'The state is unknown, already used or older than 10 minutes: start again with POST /v1/platforms/{platform}/connect.',
    { parameter: 'state' },
  );

export interface CallbackResult {
  workspaceId: string;
  platform: Platform;
  handle: string;
  followers: number;
  connectionId: string;
  reconnected: boolean;
}

/**
 * The platform's redirect back: claims the state (once), records a refusal, or exchanges the code
 * (oauth4webapi, with the PKCE verifier), reads the account and creates the connection, or brings a
 * connection waiting for re-authorisation back in place.
 */
export async function completeConnect(
  ctx: AppContext,
  platform: Platform,
  params: URLSearchParams,
): Promise<CallbackResult> {
  const state = params.get('state');
  if (!state) throw invalidParameter('state', 'is required');
  const now = ctx.now();
  // Claimed before anything else, so a replay (even a concurrent one) finds it used.
  const claimed = await ctx.db
    .updateTable('oauth_states')
    .set({ used_at: now, outcome: 'failed' })
    .where('state_hash', '=', sha256(state))
    .where('platform', '=', platform)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
  if (!claimed) throw invalidState();
  const record = (outcome: 'connected' | 'denied' | 'failed', error: string | null) =>
    ctx.db
      .updateTable('oauth_states')
      .set({ outcome, error: error?.slice(0, 300) ?? null })
      .where('state_hash', '=', claimed.state_hash)
      .execute();

  // The state is bound to the key that asked: if that key was revoked or expired meanwhile, its
  // authorisation goes with it.
  const owner = await ctx.db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', claimed.owner_key_id)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  if (!owner) {
    await record('failed', 'the API key that started the authorisation is no longer valid');
    throw new DomainError(
      'forbidden',
      'The API key that started this authorisation has been revoked or has expired.',
    );
  }

  const e = configured(ctx, platform);
  const { as, client } = oauthParties(e);
  let callback: URLSearchParams;
  try {
    callback = oauth.validateAuthResponse(as, client, params, state);
  } catch (error) {
    if (error instanceof oauth.AuthorizationResponseError) {
      const denied = error.error === 'access_denied';
      await record(denied ? 'denied' : 'failed', `${error.error}: ${error.error_description ?? ''}`);
      throw denied
        ? new DomainError(
            'consent_denied',
            `The ${platform} account owner did not grant access; nothing was connected.`,
          )
        : new DomainError('authorization_failed', `${platform} refused the authorisation (${error.error}).`);
    }
    await record('failed', 'malformed authorisation response');
    throw new DomainError('authorization_failed', 'The authorisation response has no code.', {
      parameter: 'code',
    });
  }

  const verifier = ctx.keyRing.open(
    { ciphertext: claimed.code_verifier, keyId: claimed.code_verifier_key_id },
    OAUTH_VERIFIER_PURPOSE,
  );
  let tokens: oauth.TokenEndpointResponse;
  try {
    if (e.quirks.tokenProtocol === 'tiktok-business') {
      tokens = await tiktokBusiness.exchangeCode(e, callback.get('code') ?? '', claimed.redirect_uri);
    } else {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth(e),
        callback,
        claimed.redirect_uri,
        verifier,
        oauthOptions(e),
      );
      tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    }
    if (e.quirks.longLivedExchange) tokens = await exchangeLongLived(e, tokens.access_token);
  } catch (error) {
    const refused = error instanceof oauth.ResponseBodyError && error.status < 500;
    await record('failed', refused ? `token exchange refused: ${error.error}` : 'token endpoint unavailable');
    throw refused
      ? new DomainError('authorization_failed', `${platform} refused the code (${error.error}); start again.`)
      : new DomainError(
          'platform_unavailable',
          `${platform}'s token endpoint did not answer usably; start again later.`,
        );
  }

  let who;
  try {
    who = await identify(e, tokens.access_token, tokens as { open_id?: unknown });
  } catch (error) {
    await record(
      'failed',
      error instanceof ConnectorError ? 'account lookup failed' : 'account lookup error',
    );
    throw new DomainError(
      'platform_unavailable',
      `${platform} did not describe the authorised account; start again later.`,
    );
  }
  if (who.handle.length > 100) {
    await record('failed', 'handle too long');
    throw new DomainError('platform_unavailable', `${platform} returned an unusable account handle.`);
  }

  // A Facebook Page is read with its own token (from /me/accounts; it does not expire while the
  // long-lived user token it came from is valid), not the person's.
  const sealed = sealTokens(
    ctx.keyRing,
    who.accessToken
      ? {
          accessToken: who.accessToken,
          refreshToken: null,
          expiresAt: null,
          scopes: tokenSet(tokens, now).scopes,
        }
      : tokenSet(tokens, now),
  );
  const result = await ctx.db.transaction().execute(async (trx) => {
    // The workspace row is locked so two callbacks cannot both pass the plan limit.
    const ws = await trx
      .selectFrom('workspaces')
      .select(['id', 'plan'])
      .where('id', '=', claimed.workspace_id)
      .forUpdate()
      .executeTakeFirst();
    if (!ws) throw new DomainError('not_found', 'The workspace no longer exists.');
    const live = await liveConnections(trx, ws.id);
    checkConnectable(live, ws.plan, platform);
    const waiting = live.find((c) => c.platform === platform);
    const values = {
      handle: who.handle,
      account_id: who.accountId,
      followers: who.followers,
      ...sealed,
    };
    if (waiting) {
      await trx
        .updateTable('platform_connections')
        .set({
          ...values,
          status: 'connected',
          reauth_at: null,
          // The sync state starts over: due now, no error streak.
          next_sync_at: null,
          manual_sync_at: null,
          ...SYNC_STATE_CLEAN,
        })
        .where('id', '=', waiting.id)
        .where('status', '=', 'reauth_required')
        .execute();
      return { id: waiting.id, reconnected: true };
    }
    const id = newId('pc');
    await trx
      .insertInto('platform_connections')
      .values({ id, workspace_id: ws.id, platform, connected_at: now, ...values })
      .execute();
    return { id, reconnected: false };
  });
  await record('connected', null);
  return {
    workspaceId: claimed.workspace_id,
    platform,
    handle: who.handle,
    followers: who.followers,
    connectionId: result.id,
    reconnected: result.reconnected,
  };
}

/**
 * Meta's long-lived token: the short-lived user token of the code exchange traded at the token
 * endpoint (grant_type=fb_exchange_token), through oauth4webapi's generic grant.
 */
async function exchangeLongLived(
  e: PlatformEndpoints,
  shortLived: string,
): Promise<oauth.TokenEndpointResponse> {
  const { as, client } = oauthParties(e);
  const response = await oauth.genericTokenEndpointRequest(
    as,
    client,
    clientAuth(e),
    'fb_exchange_token',
    { fb_exchange_token: shortLived },
    oauthOptions(e),
  );
  return oauth.processGenericTokenEndpointResponse(as, client, response);
}

/**
 * Disconnects: revokes the grant at the platform where it has RFC 7009 revocation (best effort: a
 * platform that is down does not keep a brand connected), then forgets the tokens. Metric history stays.
 */
export async function disconnect(
  ctx: AppContext,
  workspaceId: string,
  platform: Platform,
): Promise<{ revoked: boolean }> {
  const row = await ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'access_token', 'access_token_key_id', 'refresh_token', 'refresh_token_key_id'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where('status', '<>', 'disconnected')
    .executeTakeFirst();
  if (!row) {
    throw new DomainError(
      'platform_not_connected',
      `${platform} is not connected to workspace ${workspaceId}.`,
    );
  }
  let revoked = false;
  const e = platformEndpoints(ctx.config, platform);
  const sealedToken = row.refresh_token
    ? { ciphertext: row.refresh_token, keyId: row.refresh_token_key_id! }
    : row.access_token
      ? { ciphertext: row.access_token, keyId: row.access_token_key_id! }
      : null;
  if (e.revokeUrl && e.clientId && sealedToken) {
    const { as, client } = oauthParties(e);
    try {
      if (e.quirks.tokenProtocol === 'tiktok-business') {
        // TikTok's revocation takes the access token (the grant goes with it).
        if (!row.access_token) throw new Error('no access token on file');
        const access = { ciphertext: row.access_token, keyId: row.access_token_key_id! };
        await tiktokBusiness.revoke(e, ctx.keyRing.open(access, PLATFORM_TOKEN_PURPOSE));
      } else {
        const token = ctx.keyRing.open(sealedToken, PLATFORM_TOKEN_PURPOSE);
        await oauth.processRevocationResponse(
          await oauth.revocationRequest(as, client, clientAuth(e), token, oauthOptions(e, 5_000)),
        );
      }
      revoked = true;
    } catch {
      revoked = false;
    }
  }
  const now = ctx.now();
  await ctx.db
    .updateTable('platform_connections')
    .set({
      status: 'disconnected',
      disconnected_at: now,
      reauth_at: null,
      access_token: null,
      access_token_key_id: null,
      refresh_token: null,
      refresh_token_key_id: null,
      token_expires_at: null,
    })
    .where('id', '=', row.id)
    .where('status', '<>', 'disconnected')
    .execute();
  return { revoked };
}
