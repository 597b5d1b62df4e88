import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../infra/db/types.ts';
import { newId } from '../infra/ids.ts';
import { SESSION_PRINCIPAL_PREFIX } from '../infra/auth/principal.ts';
import { recordAudit, type AuditActor } from '../audit-log/record.ts';
import { KeyRingError } from '../infra/crypto/keyring.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import { planAtLeast, type Plan, type Platform } from '../core/catalog.ts';
import { allows } from '../core/permissions.ts';
import { checkPlatformLimit, connectionsHoldingPlace } from './queries.ts';
import { holdsPlace } from '../ingest/connection-state.ts';
import { lockWorkspace } from '../workspaces/queries.ts';
import { visibleTo } from '../workspaces/tenancy.ts';
import { ConnectorError } from '../ingest/connectors/index.ts';
import { SYNC_STATE_CLEAN } from '../ingest/sync.ts';
import { grantedScopes, listAccounts, type AccountCandidate } from './identity.ts';
import { checkScopes } from './scopes.ts';
import { oauthParties, platformEndpoints, type PlatformEndpoints } from './oauth-config.ts';
import * as tiktokBusiness from './tiktok-business-oauth.ts';
import { clientAuth, oauthOptions, sealTokens, tokenSet, type TokenSet } from './vault.ts';

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
  // A connection waiting for re-authorisation already holds its place.
  checkPlatformLimit(
    plan,
    live.map((c) => c.platform),
    platform,
  );
}

/** The cookie that binds an authorisation to the browser that started it (docs/ingestion.md). */
export const bindingCookie = (platform: Platform) => `bh_connect_${platform}`;

/** How long a brand has to pick an account once the login gave several. */
export const SELECTION_TTL_MS = 30 * 60_000;

/**
 * Starts an authorisation: a PKCE verifier (sealed), a random state (stored as its hash) and a
 * browser-binding nonce (stored as its hash; the route sets it as an HttpOnly cookie on the
 * callback's path), bound to the workspace, the platform and the API key, valid STATE_TTL_MS.
 * Returns the attempt's id and the platform's URL. `origin` is where the service is reachable
 * (PUBLIC_URL, or a loopback address): null refuses unless PLATFORM_<NAME>_REDIRECT_URI is set.
 */
export async function startConnect(
  ctx: AppContext,
  input: { workspaceId: string; plan: Plan; keyId: string; platform: Platform; origin: string | null },
): Promise<{ id: string; authorizationUrl: string; expiresAt: Date; binding: string; redirectUri: string }> {
  const { platform } = input;
  const e = configured(ctx, platform);
  const redirectUri =
    e.redirectUri ?? (input.origin ? `${input.origin}/v1/platforms/${platform}/callback` : null);
  if (!redirectUri) {
    throw new DomainError(
      'platform_not_configured',
      'This service does not know its public address, so it cannot tell the platform where to send the ' +
        'account owner back: the operator sets PUBLIC_URL (or PLATFORM_' +
        `${platform.toUpperCase()}_REDIRECT_URI). Without it, connecting works only on a loopback address.`,
    );
  }
  checkConnectable(await connectionsHoldingPlace(ctx.db, input.workspaceId), input.plan, platform);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const binding = oauth.generateRandomState();
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + STATE_TTL_MS);
  const stateHash = sha256(state);
  const sealed = ctx.keyRing.seal(verifier, sealedAt('oauth_states.code_verifier', stateHash));
  const id = newId('oc');
  await ctx.db.transaction().execute(async (trx) => {
    // An earlier attempt still waiting for a pick is superseded, and any whose time to pick has run
    // out is closed: their waiting tokens are forgotten.
    await trx
      .updateTable('oauth_states')
      .set({ ...FORGET_TOKENS, outcome: 'failed', error: 'superseded by a newer connect' })
      .where('workspace_id', '=', input.workspaceId)
      .where('platform', '=', platform)
      .where('outcome', '=', 'pending_selection')
      .execute();
    await trx
      .updateTable('oauth_states')
      .set({ ...FORGET_TOKENS, outcome: 'failed', error: 'no account was picked in time' })
      .where('outcome', '=', 'pending_selection')
      .where('expires_at', '<=', now)
      .execute();
    await trx
      .insertInto('oauth_states')
      .values({
        id,
        state_hash: stateHash,
        binding_hash: sha256(binding),
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
  });
  const url = new URL(e.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set(e.quirks.clientIdParam, e.clientId!);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', e.scopes.join(e.quirks.scopeSeparator));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  for (const [name, value] of Object.entries(e.quirks.authorizeParams)) url.searchParams.set(name, value);
  return { id, authorizationUrl: url.href, expiresAt, binding, redirectUri };
}

const FORGET_TOKENS = {
  access_token: null,
  access_token_key_id: null,
  refresh_token: null,
  refresh_token_key_id: null,
  token_expires_at: null,
} as const;

const invalidState = () =>
  new DomainError(
    'invalid_state',
    'The state is unknown, already used or older than 10 minutes: start again with POST /v1/platforms/{platform}/connect.',
    { parameter: 'state' },
  );

/** An account offered to the brand, as the attempt stores and the API shows it. */
export interface Candidate {
  accountId: string;
  handle: string;
  name: string;
  followers: number;
  /** Live in another workspace: connecting it here needs `share: true`. */
  connectedElsewhere: boolean;
}

/** A connect attempt as the API shows it. */
export interface ConnectAttempt {
  id: string;
  platform: Platform;
  workspaceId: string;
  status: 'pending' | 'pending_selection' | 'connected' | 'denied' | 'failed' | 'expired';
  expiresAt: Date;
  /** The connection made (connected). */
  /** The connection made (connected); `reconnected` is known only to the request that made it. */
  connection?: { id: string; handle: string; followers: number; reconnected?: boolean };
  /** pending_selection: the accounts to pick from. */
  accounts?: Candidate[];
  grantedScopes: string[] | null;
  /** Requested and not granted (optional ones only: a missing required one refuses the connect). */
  missingScopes: string[];
  error?: string;
}

/**
 * Who may complete an authorisation: the browser that started it (the nonce of its binding cookie),
 * or, for an application whose own page receives the platform's redirect, the API key that started it.
 */
export type Binding = { cookie: string | null } | { keyId: string };

/**
 * The platform's redirect back. Claims the state (once); refuses a browser or key other than the
 * one that started it (RFC 9700 4.7: a person who merely consents at someone else's URL attaches
 * nothing); re-checks that the starting key may still connect platforms of the workspace; records
 * a refusal; exchanges the code (oauth4webapi, with the PKCE verifier); refuses when a required
 * scope was declined; lists the accounts the login may connect; then connects the one account (a
 * reconnect: only the connection's own account) or leaves the attempt `pending_selection` with the
 * candidates for the brand to pick (selectAccount).
 */
export async function completeConnect(
  ctx: AppContext,
  platform: Platform,
  params: URLSearchParams,
  binding: Binding,
  address: string | null,
): Promise<ConnectAttempt> {
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

  const bound =
    'keyId' in binding
      ? binding.keyId === claimed.owner_key_id
      : binding.cookie !== null &&
        claimed.binding_hash !== null &&
        sha256(binding.cookie) === claimed.binding_hash;
  if (!bound) {
    await record('failed', 'completed by another browser or key than the one that started it');
    throw new DomainError(
      'connect_started_elsewhere',
      'This authorisation was started in another browser (or by another API key): nothing was connected. ' +
        'Connecting completes only where it started, so an account cannot be attached to a workspace by ' +
        'someone who merely opened its authorisation link. Start again from the workspace that should ' +
        'hold the account.',
    );
  }
  try {
    await checkStarter(ctx, claimed.owner_key_id, claimed.workspace_id, now);
  } catch (error) {
    await record('failed', 'whoever started the authorisation may no longer connect platforms');
    throw error;
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

  let verifier: string;
  try {
    verifier = ctx.keyRing.open(
      { ciphertext: claimed.code_verifier, keyId: claimed.code_verifier_key_id },
      sealedAt('oauth_states.code_verifier', claimed.state_hash),
    );
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error;
    await record('failed', 'the stored PKCE verifier does not open for this attempt');
    throw new DomainError(
      'authorization_failed',
      'This connect attempt cannot be completed; start again with POST /v1/platforms/{platform}/connect.',
    );
  }
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

  let listed: AccountCandidate[];
  let granted: string[] | null;
  try {
    granted = await grantedScopes(e, tokens.access_token, tokens as { scope?: unknown });
    listed = await listAccounts(e, tokens.access_token, tokens as { open_id?: unknown });
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
  const scopes = checkScopes(e.scopes, granted);
  if (scopes.missingRequired.length) {
    await record('failed', `declined: ${scopes.missingRequired.join(' ')}`);
    throw new DomainError(
      'permissions_declined',
      `The ${platform} account owner did not grant ${scopes.missingRequired.join(', ')}, without which ` +
        'its data cannot be read; nothing was connected. Connect again and leave these permissions ticked.',
      { missing: scopes.missingRequired },
    );
  }
  const usable = listed.filter((c) => c.handle.length <= 100);
  if (!usable.length) {
    await record('failed', 'the login manages no account to connect');
    throw new DomainError(
      'authorization_failed',
      platform === 'instagram'
        ? 'The login manages no Facebook Page with a linked Instagram business or creator account; nothing was connected.'
        : platform === 'facebook'
          ? 'The login manages no Facebook Page; nothing was connected.'
          : `The ${platform} login gave no account to connect; nothing was connected.`,
    );
  }

  // A reconnect may only bring back the connection's own account.
  const waiting = await ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'handle', 'account_id'])
    .where('workspace_id', '=', claimed.workspace_id)
    .where('platform', '=', platform)
    .where('status', '=', 'reauth_required')
    .executeTakeFirst();
  const offered = waiting ? usable.filter((c) => sameAccount(waiting, c)) : usable;
  if (waiting && !offered.length) {
    await record('failed', 'the reconnect authorised another account');
    throw accountMismatch(platform, waiting, usable);
  }

  const candidates = await markShared(ctx.db, platform, claimed.workspace_id, offered);
  const base = {
    id: claimed.id,
    platform,
    workspaceId: claimed.workspace_id,
    grantedScopes: scopes.granted,
    missingScopes: scopes.missing,
  };
  if (candidates.length === 1 && !candidates[0]!.connectedElsewhere) {
    const chosen = offered[0]!;
    const made = await finish(ctx, {
      attempt: claimed.state_hash,
      workspaceId: claimed.workspace_id,
      platform,
      account: chosen,
      tokens: tokensFor(chosen, tokens, now),
      granted: scopes.granted,
      share: false,
      address,
    }).catch(async (error: unknown) => {
      // Refused under the workspace lock (plan limit, already connected, a race): say why on the row.
      await record('failed', error instanceof DomainError ? error.kind : 'connection not stored');
      throw error;
    });
    return {
      ...base,
      status: 'connected',
      expiresAt: claimed.expires_at,
      connection: {
        id: made.id,
        handle: chosen.handle,
        followers: chosen.followers,
        reconnected: made.reconnected,
      },
    };
  }

  // Several accounts (or one already connected elsewhere): the brand picks, through the API.
  const expiresAt = new Date(now.getTime() + SELECTION_TTL_MS);
  const user = sealTokens(ctx.keyRing, tokenSet(tokens, now), {
    table: 'oauth_states',
    row: claimed.state_hash,
  });
  await ctx.db
    .updateTable('oauth_states')
    .set({
      outcome: 'pending_selection',
      error: null,
      expires_at: expiresAt,
      candidates: JSON.stringify(candidates),
      granted_scopes: scopes.granted,
      access_token: user.access_token,
      access_token_key_id: user.access_token_key_id,
      refresh_token: user.refresh_token,
      refresh_token_key_id: user.refresh_token_key_id,
      token_expires_at: user.token_expires_at,
    })
    .where('state_hash', '=', claimed.state_hash)
    .execute();
  return { ...base, status: 'pending_selection', expiresAt, accounts: candidates };
}

/**
 * The brand picks one of the accounts a login gave (an attempt `pending_selection`), with the key
 * that started the attempt. Facebook Pages are listed again with the stored user token, for the
 * chosen Page's own token. An account live in another workspace needs `share: true`.
 */
export async function selectAccount(
  ctx: AppContext,
  input: {
    platform: Platform;
    attemptId: string;
    keyId: string;
    accountId: string;
    share: boolean;
    address: string | null;
  },
): Promise<ConnectAttempt> {
  const { platform } = input;
  const now = ctx.now();
  const row = await ownAttempt(ctx.db, input.platform, input.attemptId, input.keyId);
  if (row.outcome !== 'pending_selection' || row.expires_at <= now || !row.access_token) {
    throw new DomainError(
      'connect_not_pending',
      row.outcome === 'pending_selection'
        ? 'The time to pick an account has run out; start again with POST /v1/platforms/{platform}/connect.'
        : 'This connect attempt is not waiting for an account to be picked.',
    );
  }
  await checkStarter(ctx, row.owner_key_id, row.workspace_id, now);
  const candidates = readCandidates(row.candidates);
  const picked = candidates.find((c) => c.accountId === input.accountId);
  if (!picked) {
    throw invalidParameter('account_id', 'is not one of the accounts this authorisation gave');
  }
  const e = configured(ctx, platform);
  const userToken = openWaiting(ctx, row, 'access_token', {
    ciphertext: row.access_token,
    keyId: row.access_token_key_id!,
  });
  let account: AccountCandidate = picked;
  if (platform === 'facebook' && e.quirks.accountsVia === 'me/accounts') {
    // The Page's own token (not kept while waiting): listed again with the user token.
    let fresh: AccountCandidate[];
    try {
      fresh = await listAccounts(e, userToken, {});
    } catch {
      throw new DomainError(
        'platform_unavailable',
        `${platform} did not list the login's Pages; try again later or start again.`,
      );
    }
    const again = fresh.find((c) => c.accountId === picked.accountId);
    if (!again) {
      throw new DomainError(
        'connect_not_pending',
        'The login no longer manages that Page; start again with POST /v1/platforms/{platform}/connect.',
      );
    }
    account = again;
  }
  const refresh = row.refresh_token
    ? openWaiting(ctx, row, 'refresh_token', {
        ciphertext: row.refresh_token,
        keyId: row.refresh_token_key_id!,
      })
    : null;
  const granted = row.granted_scopes;
  const scopes = granted?.join(' ') ?? null;
  const tokens: TokenSet = account.accessToken
    ? { accessToken: account.accessToken, refreshToken: null, expiresAt: null, scopes }
    : { accessToken: userToken, refreshToken: refresh, expiresAt: row.token_expires_at, scopes };
  const made = await finish(ctx, {
    attempt: row.state_hash,
    workspaceId: row.workspace_id,
    platform,
    account,
    tokens,
    granted,
    share: input.share,
    address: input.address,
  });
  return {
    id: row.id,
    platform,
    workspaceId: row.workspace_id,
    status: 'connected',
    expiresAt: row.expires_at,
    connection: {
      id: made.id,
      handle: account.handle,
      followers: account.followers,
      reconnected: made.reconnected,
    },
    grantedScopes: granted,
    missingScopes: checkScopes(e.scopes, granted).missing,
  };
}

/** A connect attempt, to the key that started it (404 to any other). */
export async function connectAttempt(
  ctx: AppContext,
  platform: Platform,
  attemptId: string,
  keyId: string,
): Promise<ConnectAttempt> {
  const row = await ownAttempt(ctx.db, platform, attemptId, keyId);
  const now = ctx.now();
  const e = platformEndpoints(ctx.config, platform);
  const scopes = checkScopes(e.scopes, row.granted_scopes);
  const base = {
    id: row.id,
    platform,
    workspaceId: row.workspace_id,
    expiresAt: row.expires_at,
    grantedScopes: scopes.granted,
    missingScopes: scopes.missing,
  };
  if (row.outcome === null) return { ...base, status: row.expires_at > now ? 'pending' : 'expired' };
  if (row.outcome === 'pending_selection') {
    return row.expires_at > now
      ? { ...base, status: 'pending_selection', accounts: readCandidates(row.candidates) }
      : { ...base, status: 'expired' };
  }
  if (row.outcome === 'connected' && row.connection_id) {
    const c = await ctx.db
      .selectFrom('platform_connections')
      .select(['id', 'handle', 'followers', 'granted_scopes'])
      .where('id', '=', row.connection_id)
      .executeTakeFirst();
    if (c) {
      return {
        ...base,
        status: 'connected',
        connection: { id: c.id, handle: c.handle, followers: c.followers },
      };
    }
  }
  return {
    ...base,
    status: row.outcome === 'denied' ? 'denied' : row.outcome === 'connected' ? 'connected' : 'failed',
    ...(row.error ? { error: row.error } : {}),
  };
}

async function ownAttempt(db: Kysely<DB>, platform: Platform, attemptId: string, keyId: string) {
  const row = await db
    .selectFrom('oauth_states')
    .selectAll()
    .where('id', '=', attemptId)
    .where('platform', '=', platform)
    .where('owner_key_id', '=', keyId)
    .executeTakeFirst();
  if (!row) {
    throw new DomainError(
      'not_found',
      `No ${platform} connect attempt "${attemptId}" was started with this API key.`,
    );
  }
  return row;
}

function readCandidates(value: unknown): Candidate[] {
  return Array.isArray(value) ? (value as Candidate[]) : [];
}

/**
 * Whoever started an authorisation must still be allowed to connect platforms of the workspace when
 * it completes. A key: not revoked or expired, `write` scope, its owner on Pro or above, and the
 * workspace still its own or one of its agency's clients (a client moved to another agency meanwhile
 * is not). A signed-in person (SESSION_PRINCIPAL_PREFIX + person id): still a member of the workspace or of its
 * agency, in a role that may manage platforms, on Pro or above (people's own rule, ctx.memberAccess).
 */
async function checkStarter(ctx: AppContext, starter: string, workspaceId: string, now: Date): Promise<void> {
  if (starter.startsWith(SESSION_PRINCIPAL_PREFIX)) {
    const access = await ctx.memberAccess(starter.slice(SESSION_PRINCIPAL_PREFIX.length), workspaceId);
    if (!access || !allows(access.actions, 'platform.manage') || !planAtLeast(access.plan, 'pro')) {
      throw new DomainError(
        'forbidden',
        'The person who started this authorisation may no longer connect platforms of this workspace.',
      );
    }
    return;
  }
  const key = await ctx.db
    .selectFrom('api_keys')
    .innerJoin('workspaces as owner', 'owner.id', 'api_keys.workspace_id')
    .select(['api_keys.scopes', 'api_keys.workspace_id', 'owner.plan'])
    .where('api_keys.id', '=', starter)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
    .executeTakeFirst();
  if (!key) {
    throw new DomainError(
      'forbidden',
      'The API key that started this authorisation has been revoked or has expired.',
    );
  }
  const target = await ctx.db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', workspaceId)
    .where(visibleTo(key.workspace_id!))
    .executeTakeFirst();
  if (!target || !key.scopes.includes('write') || !planAtLeast(key.plan, 'pro')) {
    throw new DomainError(
      'forbidden',
      'The API key that started this authorisation may no longer connect platforms of this workspace.',
    );
  }
}

function sameAccount(waiting: { handle: string; account_id: string | null }, c: AccountCandidate): boolean {
  if (waiting.account_id) return waiting.account_id === c.accountId;
  return waiting.handle.replace(/^@/, '').toLowerCase() === c.handle.replace(/^@/, '').toLowerCase();
}

function accountMismatch(
  platform: Platform,
  waiting: { handle: string; account_id: string | null },
  got: AccountCandidate[],
): DomainError<'account_mismatch'> {
  const connected = `${waiting.handle}${waiting.account_id ? ` (${waiting.account_id})` : ''}`;
  const authorised = got.map((c) => `${c.handle} (${c.accountId})`);
  return new DomainError(
    'account_mismatch',
    `The ${platform} connection waiting for re-authorisation is ${connected}, but the login gave ` +
      `${authorised.join(', ')}: nothing was changed. Sign in as ${waiting.handle} to reconnect it, or ` +
      `disconnect it first (DELETE /v1/platforms/${platform}) to connect another account.`,
    { connected, authorised },
  );
}

/** Marks candidates that are live in another workspace. */
async function markShared(
  db: Kysely<DB>,
  platform: Platform,
  workspaceId: string,
  list: AccountCandidate[],
): Promise<Candidate[]> {
  const ids = list.map((c) => c.accountId);
  const elsewhere = ids.length
    ? await db
        .selectFrom('platform_connections')
        .select('account_id')
        .where('platform', '=', platform)
        .where('account_id', 'in', ids)
        .where('workspace_id', '<>', workspaceId)
        .where(holdsPlace)
        .execute()
    : [];
  const shared = new Set(elsewhere.map((r) => r.account_id));
  return list.map((c) => ({
    accountId: c.accountId,
    handle: c.handle,
    name: c.name,
    followers: c.followers,
    connectedElsewhere: shared.has(c.accountId),
  }));
}

/** The tokens a connection to `account` stores (a Facebook Page: the Page's own token). */
function tokensFor(account: AccountCandidate, tokens: oauth.TokenEndpointResponse, now: Date): TokenSet {
  const set = tokenSet(tokens, now);
  return account.accessToken
    ? { accessToken: account.accessToken, refreshToken: null, expiresAt: null, scopes: set.scopes }
    : set;
}

/**
 * A token of a connect attempt waiting for a pick. One that does not open for this attempt (moved
 * from another row, or altered; the key ring logs it) ends the wait: the brand starts again.
 */
function openWaiting(
  ctx: AppContext,
  row: { state_hash: string },
  column: 'access_token' | 'refresh_token',
  sealed: { ciphertext: string; keyId: string },
): string {
  try {
    return ctx.keyRing.open(sealed, sealedAt(`oauth_states.${column}`, row.state_hash));
  } catch (error) {
    if (!(error instanceof KeyRingError)) throw error;
    throw new DomainError(
      'connect_not_pending',
      'This connect attempt can no longer be completed; start again with POST /v1/platforms/{platform}/connect.',
    );
  }
}

/**
 * Creates the connection, or restores the one waiting for re-authorisation in place (only with its
 * own account), in one transaction under a lock on the workspace row (so two completions cannot both
 * pass the plan limit), and marks the attempt connected (its waiting tokens forgotten).
 */
async function finish(
  ctx: AppContext,
  input: {
    attempt: string;
    workspaceId: string;
    platform: Platform;
    account: AccountCandidate;
    tokens: TokenSet;
    granted: string[] | null;
    share: boolean;
    /** The client address of the request that completes it (the audit log's). */
    address: string | null;
  },
): Promise<{ id: string; reconnected: boolean }> {
  const { platform, account } = input;
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const ws = await lockWorkspace(trx, input.workspaceId);
    if (!ws) throw new DomainError('not_found', 'The workspace no longer exists.');
    const attempt = await trx
      .selectFrom('oauth_states')
      .select(['outcome', 'owner_key_id'])
      .where('state_hash', '=', input.attempt)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (attempt.outcome !== 'failed' && attempt.outcome !== 'pending_selection') {
      throw new DomainError('connect_not_pending', 'This connect attempt has been completed already.');
    }
    const live = await connectionsHoldingPlace(trx, ws.id);
    checkConnectable(live, ws.plan, platform);
    const waiting = await trx
      .selectFrom('platform_connections')
      .select(['id', 'handle', 'account_id'])
      .where('workspace_id', '=', ws.id)
      .where('platform', '=', platform)
      .where('status', '=', 'reauth_required')
      .executeTakeFirst();
    if (waiting && !sameAccount(waiting, account)) throw accountMismatch(platform, waiting, [account]);
    if (!input.share) {
      const elsewhere = await trx
        .selectFrom('platform_connections')
        .select('id')
        .where('platform', '=', platform)
        .where('account_id', '=', account.accountId)
        .where('workspace_id', '<>', ws.id)
        .where(holdsPlace)
        .executeTakeFirst();
      if (elsewhere) {
        throw new DomainError(
          'account_connected_elsewhere',
          `${account.handle} is already connected to another workspace. Connecting it here as well is ` +
            'allowed only when asked for explicitly: pick it again with `share: true`.',
          { parameter: 'share' },
        );
      }
    }
    const id = waiting ? waiting.id : newId('pc');
    const values = {
      handle: account.handle,
      account_id: account.accountId,
      followers: account.followers,
      granted_scopes: input.granted,
      ...sealTokens(ctx.keyRing, input.tokens, { table: 'platform_connections', row: id }),
    };
    let made: { id: string; reconnected: boolean };
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
      made = { id: waiting.id, reconnected: true };
    } else {
      await trx
        .insertInto('platform_connections')
        .values({ id, workspace_id: ws.id, platform, connected_at: now, ...values })
        .execute();
      made = { id, reconnected: false };
    }
    await trx
      .updateTable('oauth_states')
      .set({ ...FORGET_TOKENS, outcome: 'connected', error: null, connection_id: made.id })
      .where('state_hash', '=', input.attempt)
      .execute();
    await recordAudit(trx, {
      actor: starterActor(attempt.owner_key_id),
      action: 'platform.connected',
      target: made.id,
      detail: `${platform} ${account.handle}${made.reconnected ? ' (reconnected)' : ''}`,
      address: input.address,
      workspaceId: ws.id,
      at: now,
    });
    return made;
  });
}

/** The audit actor of a connect attempt: the person whose session started it, or its API key. */
function starterActor(ownerKeyId: string): AuditActor {
  return ownerKeyId.startsWith(SESSION_PRINCIPAL_PREFIX)
    ? { personId: ownerKeyId.slice(SESSION_PRINCIPAL_PREFIX.length) }
    : { keyId: ownerKeyId };
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
  audit: { actor: AuditActor; address: string | null },
): Promise<{ revoked: boolean }> {
  const row = await ctx.db
    .selectFrom('platform_connections')
    .select(['id', 'access_token', 'access_token_key_id', 'refresh_token', 'refresh_token_key_id'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', platform)
    .where(holdsPlace)
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
        await tiktokBusiness.revoke(
          e,
          ctx.keyRing.open(access, sealedAt('platform_connections.access_token', row.id)),
        );
      } else {
        const token = ctx.keyRing.open(
          sealedToken,
          sealedAt(`platform_connections.${row.refresh_token ? 'refresh_token' : 'access_token'}`, row.id),
        );
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
  await ctx.db.transaction().execute(async (trx) => {
    const done = await trx
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
      .where(holdsPlace)
      .executeTakeFirst();
    if (!done.numUpdatedRows) return;
    await recordAudit(trx, {
      actor: audit.actor,
      action: 'platform.disconnected',
      target: row.id,
      detail: platform,
      address: audit.address,
      workspaceId,
      at: now,
    });
  });
  return { revoked };
}
