import { createHash, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { DomainError, invalidParameter } from '../core/errors.ts';
import type { DB, SsoSettingsTable } from '../infra/db/types.ts';
import { KeyRingError } from '../infra/crypto/keyring.ts';
import { sealedAt } from '../infra/crypto/sealed-columns.ts';
import { pinnedFetch } from '../infra/net/pinned-fetch.ts';
import { newId } from '../infra/ids.ts';
import { recordAudit } from '../audit-log/record.ts';
import { normaliseEmail, workspacesOf } from './service.ts';
import { startSession } from './sessions.ts';
import { checkTeamLimit } from './teams.ts';

/**
 * Single sign-on through a workspace's own OpenID Connect provider (docs/security.md, "Single
 * sign-on"; docs/adr/0192-oidc-single-sign-on.md). Authorization code flow with PKCE (S256), state
 * and nonce, through openid-client; every request to the provider goes through `pinnedFetch`, so a
 * workspace's issuer URL cannot reach our own network.
 */

/** How long a sign-in attempt (its state) stays usable. */
export const SSO_ATTEMPT_TTL_MS = 10 * 60_000;
/** Sign-in starts per client address in one window (each stores an attempt). */
export const SSO_STARTS_PER_ADDRESS = 100;
const SSO_WINDOW_MS = 15 * 60_000;
/** The dashboard: where a sign-in lands, and where a failed one is sent with `?sso_error=`. */
export const DASHBOARD_HOME = '/app/';

export type SsoRole = SsoSettingsTable['default_role'];

/**
 * Why a single sign-on failed, as the short code the dashboard is sent (`/app/?sso_error=<code>`).
 * The codes say what to do, not what an attacker would like to learn.
 */
export const SSO_ERRORS = [
  'sso_unavailable',
  'too_many_attempts',
  'provider_unreachable',
  'invalid_state',
  'provider_refused',
  'token_rejected',
  'email_unverified',
  'domain_not_allowed',
  'account_exists',
  'team_limit_reached',
  'unexpected',
] as const;
export type SsoErrorCode = (typeof SSO_ERRORS)[number];

export class SsoFailure extends Error {
  override name = 'SsoFailure';
  readonly code: SsoErrorCode;
  constructor(code: SsoErrorCode, reason: string) {
    super(reason);
    this.code = code;
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

export interface SsoSettingsView {
  issuer: string;
  client_id: string;
  client_secret_set: true;
  allowed_domains: string[];
  default_role: SsoRole;
  enabled: boolean;
  redirect_uri: string | null;
  updated_at: string;
}

function view(
  row: Omit<SsoSettingsTable, 'client_secret' | 'client_secret_key_id'>,
  redirectUri: string | null,
) {
  return {
    issuer: row.issuer,
    client_id: row.client_id,
    client_secret_set: true as const,
    allowed_domains: row.allowed_domains,
    default_role: row.default_role,
    enabled: row.enabled,
    redirect_uri: redirectUri,
    updated_at: row.updated_at.toISOString(),
  };
}

const VIEW_COLUMNS = [
  'workspace_id',
  'issuer',
  'client_id',
  'allowed_domains',
  'default_role',
  'enabled',
  'updated_at',
] as const;

/** The callback URL the provider must know (register it as the client's redirect URI). */
export function callbackUrl(origin: string | null): string | null {
  return origin ? `${origin}/v1/auth/sso/callback` : null;
}

export async function getSsoSettings(
  ctx: AppContext,
  workspaceId: string,
  origin: string | null,
): Promise<SsoSettingsView> {
  const row = await ctx.db
    .selectFrom('sso_settings')
    .select(VIEW_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!row) throw new DomainError('not_found', 'This workspace has no single sign-on set up.');
  return view(row, callbackUrl(origin));
}

const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

/** Lower-cased, trimmed, de-duplicated; each must look like a DNS name with at least one dot. */
export function normaliseDomains(domains: readonly string[]): string[] {
  const out = [...new Set(domains.map((d) => d.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '')))];
  for (const d of out) {
    if (!DOMAIN.test(d))
      throw invalidParameter('allowed_domains', `"${d}" is not a domain name (e.g. agency.example)`);
  }
  if (out.length === 0) throw invalidParameter('allowed_domains', 'name at least one domain');
  return out;
}

function checkIssuerUrl(ctx: AppContext, issuer: string): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw invalidParameter('issuer', 'is not a URL');
  }
  const schemes = ctx.config.allowLoopbackFetch ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw invalidParameter('issuer', 'must be an https URL');
  if (url.username || url.password || url.search || url.hash) {
    throw invalidParameter('issuer', 'must carry no credentials, query or fragment');
  }
  return url;
}

/** The provider's configuration, found by OpenID Connect discovery through the pinned fetch. */
async function discover(
  ctx: AppContext,
  issuer: string,
  clientId: string,
  clientSecret: string,
): Promise<client.Configuration> {
  const allowLoopback = ctx.config.allowLoopbackFetch;
  return client.discovery(
    checkIssuerUrl(ctx, issuer),
    clientId,
    { client_secret: clientSecret },
    client.ClientSecretBasic(clientSecret),
    {
      [client.customFetch]: (url, options) =>
        pinnedFetch(url, options as Parameters<typeof pinnedFetch>[1], { allowLoopback, timeoutMs: 10_000 }),
      execute: allowLoopback ? [client.allowInsecureRequests] : [],
      timeout: 10,
    },
  );
}

export interface SsoActor {
  personId: string;
  workspaceId: string;
  address: string;
}

/**
 * Creates or replaces the workspace's provider. The issuer is checked by discovery (422 when it
 * fails); the secret is sealed, bound to the workspace's row, and never returned. Leaving the secret
 * out of a change keeps the stored one (it must be given the first time).
 */
export async function saveSsoSettings(
  ctx: AppContext,
  actor: SsoActor,
  input: {
    issuer: string;
    client_id: string;
    client_secret?: string | undefined;
    allowed_domains: string[];
    default_role: SsoRole;
    enabled?: boolean | undefined;
  },
  origin: string | null,
): Promise<SsoSettingsView> {
  // Kept exactly as given (a trailing slash included): discovery requires the provider to name itself so.
  const issuer = input.issuer.trim();
  checkIssuerUrl(ctx, issuer);
  const domains = normaliseDomains(input.allowed_domains);
  const existing = await ctx.db
    .selectFrom('sso_settings')
    .select(['client_secret', 'client_secret_key_id'])
    .where('workspace_id', '=', actor.workspaceId)
    .executeTakeFirst();
  let secret = input.client_secret;
  if (secret === undefined) {
    if (!existing) throw invalidParameter('client_secret', 'is required when single sign-on is first set up');
    try {
      secret = ctx.keyRing.open(
        { ciphertext: existing.client_secret, keyId: existing.client_secret_key_id },
        sealedAt('sso_settings.client_secret', actor.workspaceId),
      );
    } catch (error) {
      if (!(error instanceof KeyRingError)) throw error;
      throw invalidParameter('client_secret', 'the stored secret cannot be opened: send it again');
    }
  }
  try {
    await discover(ctx, issuer, input.client_id, secret);
  } catch (error) {
    const why = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
    throw new DomainError(
      'sso_discovery_failed',
      `OpenID Connect discovery at ${issuer}/.well-known/openid-configuration failed (${why}): check the issuer URL; it must be reachable from this service and name itself as the issuer.`,
      { parameter: 'issuer' },
    );
  }
  const sealed = ctx.keyRing.seal(secret, sealedAt('sso_settings.client_secret', actor.workspaceId));
  const now = ctx.now();
  const values = {
    issuer,
    client_id: input.client_id,
    client_secret: sealed.ciphertext,
    client_secret_key_id: sealed.keyId,
    allowed_domains: domains,
    default_role: input.default_role,
    enabled: input.enabled ?? true,
    updated_at: now,
  };
  const row = await ctx.db.transaction().execute(async (trx) => {
    const saved = await trx
      .insertInto('sso_settings')
      .values({ workspace_id: actor.workspaceId, ...values })
      .onConflict((oc) => oc.column('workspace_id').doUpdateSet(values))
      .returning(VIEW_COLUMNS)
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'sso.settings_changed',
      target: actor.workspaceId,
      detail: `${existing ? 'changed' : 'set up'}: ${issuer} (${domains.join(', ')}; ${input.default_role}${values.enabled ? '' : '; disabled'}${input.client_secret === undefined ? '' : '; secret set'})`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
    return saved;
  });
  return view(row, callbackUrl(origin));
}

export async function removeSsoSettings(ctx: AppContext, actor: SsoActor): Promise<void> {
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('sso_settings')
      .where('workspace_id', '=', actor.workspaceId)
      .returning('issuer')
      .executeTakeFirst();
    if (!removed) throw new DomainError('not_found', 'This workspace has no single sign-on set up.');
    await trx.deleteFrom('sso_attempts').where('workspace_id', '=', actor.workspaceId).execute();
    await recordAudit(trx, {
      actor: { personId: actor.personId },
      action: 'sso.settings_changed',
      target: actor.workspaceId,
      detail: `removed: ${removed.issuer}`,
      address: actor.address,
      workspaceId: actor.workspaceId,
      at: now,
    });
  });
}

interface EnabledSettings {
  workspace_id: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  client_secret_key_id: string;
  allowed_domains: string[];
  default_role: SsoRole;
}

const ENABLED_COLUMNS = [
  'workspace_id',
  'issuer',
  'client_id',
  'client_secret',
  'client_secret_key_id',
  'allowed_domains',
  'default_role',
] as const;

async function enabledSettings(ctx: AppContext, workspaceId: string): Promise<EnabledSettings | undefined> {
  return ctx.db
    .selectFrom('sso_settings')
    .select(ENABLED_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('enabled', '=', true)
    .executeTakeFirst();
}

/**
 * The workspace whose provider signs in `email`: the one enabled workspace allowing its domain. Two
 * workspaces allowing the same domain make the address ambiguous: the person starts from their
 * workspace's id instead (so no workspace can capture another's people by claiming their domain).
 */
async function settingsForEmail(ctx: AppContext, email: string): Promise<EnabledSettings | undefined> {
  const domain = normaliseEmail(email).split('@')[1] ?? '';
  if (!domain) return undefined;
  const rows = await ctx.db
    .selectFrom('sso_settings')
    .select(ENABLED_COLUMNS)
    .where('enabled', '=', true)
    .where((eb) => eb(eb.val(domain), '=', eb.fn.any('allowed_domains')))
    .limit(2)
    .execute();
  return rows.length === 1 ? rows[0] : undefined;
}

function openSecret(ctx: AppContext, s: EnabledSettings): string {
  return ctx.keyRing.open(
    { ciphertext: s.client_secret, keyId: s.client_secret_key_id },
    sealedAt('sso_settings.client_secret', s.workspace_id),
  );
}

async function providerOf(ctx: AppContext, s: EnabledSettings): Promise<client.Configuration> {
  try {
    return await discover(ctx, s.issuer, s.client_id, openSecret(ctx, s));
  } catch (error) {
    if (error instanceof KeyRingError) throw new SsoFailure('sso_unavailable', error.message);
    throw new SsoFailure('provider_unreachable', `discovery failed: ${(error as Error).message}`);
  }
}

/** `/app/…` only: a sign-in never sends the browser to another site. */
export function safeReturnPath(value: string | undefined): string {
  if (value === undefined) return DASHBOARD_HOME;
  if (!value.startsWith(DASHBOARD_HOME) || /[\\\s]|\/\/|%2f|%5c/i.test(value) || value.length > 300) {
    throw invalidParameter('return_to', 'must be a dashboard path starting with /app/');
  }
  return value;
}

/**
 * Starts a single sign-on: finds the workspace (by id, or by the email's domain), discovers its
 * provider, stores a single-use attempt (state and browser binding as SHA-256, the PKCE verifier
 * sealed, the nonce, the return path, and the signed-in person if any, whose account may then be
 * linked) and returns the provider's authorization URL and the binding value for the cookie.
 */
export async function startSso(
  ctx: AppContext,
  input: {
    workspaceId?: string | undefined;
    email?: string | undefined;
    returnPath: string;
    redirectUri: string;
    address: string;
    signedInPersonId: string | null;
  },
): Promise<{ authorizationUrl: string; binding: string }> {
  const hit = await ctx.rateLimits.hit(`sso-start:${input.address}`, SSO_WINDOW_MS, ctx.now().getTime());
  if (hit.count > SSO_STARTS_PER_ADDRESS) throw new SsoFailure('too_many_attempts', 'per-address limit');
  const settings =
    input.workspaceId !== undefined
      ? await enabledSettings(ctx, input.workspaceId)
      : await settingsForEmail(ctx, input.email ?? '');
  if (!settings) throw new SsoFailure('sso_unavailable', 'no single sign-on for this workspace or address');
  const config = await providerOf(ctx, settings);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const binding = randomBytes(32).toString('base64url');
  const stateHash = sha256(state);
  const sealed = ctx.keyRing.seal(verifier, sealedAt('sso_attempts.code_verifier', stateHash));
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sso_attempts').where('expires_at', '<=', now).execute();
    await trx
      .insertInto('sso_attempts')
      .values({
        state_hash: stateHash,
        binding_hash: sha256(binding),
        workspace_id: settings.workspace_id,
        nonce,
        code_verifier: sealed.ciphertext,
        code_verifier_key_id: sealed.keyId,
        redirect_uri: input.redirectUri,
        return_path: input.returnPath,
        link_person_id: input.signedInPersonId,
        created_at: now,
        expires_at: new Date(now.getTime() + SSO_ATTEMPT_TTL_MS),
      })
      .execute();
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(input.email ? { login_hint: normaliseEmail(input.email) } : {}),
  });
  return { authorizationUrl: url.href, binding };
}

interface Identity {
  issuer: string;
  subject: string;
  email: string;
  name: string;
}

/** The provider's word on who signed in: the ID token's claims, completed from UserInfo when needed. */
async function identityOf(
  config: client.Configuration,
  tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>,
): Promise<{ identity: Identity; emailVerified: boolean }> {
  const claims = tokens.claims();
  if (!claims) throw new SsoFailure('token_rejected', 'no ID token');
  let email = claims.email;
  let verified = claims.email_verified;
  let name = claims.name;
  if (typeof email !== 'string' || verified === undefined) {
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    email = info.email;
    verified = info.email_verified;
    name ??= info.name;
  }
  if (typeof email !== 'string' || !email.includes('@')) {
    throw new SsoFailure('email_unverified', 'the provider gave no email address');
  }
  const normal = normaliseEmail(email);
  return {
    identity: {
      issuer: claims.iss,
      subject: claims.sub,
      email: normal,
      name:
        typeof name === 'string' && name.trim() !== '' ? name.trim().slice(0, 200) : normal.split('@')[0]!,
    },
    emailVerified: verified === true,
  };
}

/**
 * The person of a provider identity: the one linked to it; else, for an address without an account,
 * a new person (no password; their address counts as confirmed by the provider) linked to it; an
 * address that already has an account is linked only when that person started the sign-in while
 * signed in (so a workspace's provider can never take over an account it did not create).
 */
async function personOf(
  trx: Transaction<DB>,
  identity: Identity,
  workspaceId: string,
  linkPersonId: string | null,
  now: Date,
): Promise<{ personId: string; created: boolean }> {
  const linked = await trx
    .selectFrom('sso_identities')
    .select('person_id')
    .where('issuer', '=', identity.issuer)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  if (linked) return { personId: linked.person_id, created: false };
  const existing = await trx
    .selectFrom('people')
    .select('id')
    .where('email', '=', identity.email)
    .executeTakeFirst();
  let personId: string;
  let created = false;
  if (existing) {
    if (existing.id !== linkPersonId) {
      throw new SsoFailure('account_exists', `${identity.email} has an account not linked to this provider`);
    }
    personId = existing.id;
  } else {
    personId = newId('per');
    created = true;
    await trx
      .insertInto('people')
      .values({
        id: personId,
        email: identity.email,
        name: identity.name,
        password_hash: null,
        email_verified_at: now,
        created_at: now,
      })
      .execute();
  }
  await trx
    .insertInto('sso_identities')
    .values({
      issuer: identity.issuer,
      subject: identity.subject,
      person_id: personId,
      workspace_id: workspaceId,
      created_at: now,
    })
    .execute();
  return { personId, created };
}

/**
 * The provider's redirect back. Claims the attempt (once) by its state; refuses a browser other than
 * the one that started it; exchanges the code (openid-client checks issuer, audience, signature,
 * nonce, PKCE); requires a verified email in an allowed domain; finds or creates the person, gives
 * them the workspace's default role if they have no membership there, and starts a session.
 * Every refusal is a SsoFailure, recorded in the audit log.
 */
export async function completeSso(
  ctx: AppContext,
  input: {
    query: URLSearchParams;
    binding: string | null;
    address: string;
    presentedSession: string | undefined;
  },
): Promise<{ token: string; returnPath: string }> {
  const now = ctx.now();
  let workspaceId: string | null = null;
  let email: string | null = null;
  try {
    const state = input.query.get('state');
    if (!state || state.length > 200) throw new SsoFailure('invalid_state', 'no state');
    const claimed = await ctx.db
      .updateTable('sso_attempts')
      .set({ used_at: now })
      .where('state_hash', '=', sha256(state))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    if (!claimed) throw new SsoFailure('invalid_state', 'unknown, used or expired state');
    workspaceId = claimed.workspace_id;
    if (input.binding === null || sha256(input.binding) !== claimed.binding_hash) {
      throw new SsoFailure('invalid_state', 'completed in another browser than the one that started it');
    }
    const settings = await enabledSettings(ctx, claimed.workspace_id);
    if (!settings) throw new SsoFailure('sso_unavailable', 'single sign-on was removed or disabled');
    const config = await providerOf(ctx, settings);
    const verifier = ctx.keyRing.open(
      { ciphertext: claimed.code_verifier, keyId: claimed.code_verifier_key_id },
      sealedAt('sso_attempts.code_verifier', claimed.state_hash),
    );
    const currentUrl = new URL(claimed.redirect_uri);
    currentUrl.search = input.query.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(
        config,
        currentUrl,
        {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: claimed.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: claimed.redirect_uri },
      );
    } catch (error) {
      if (error instanceof client.AuthorizationResponseError) {
        throw new SsoFailure('provider_refused', `${error.error}: ${error.error_description ?? ''}`);
      }
      throw new SsoFailure('token_rejected', (error as Error).message);
    }
    let who: Awaited<ReturnType<typeof identityOf>>;
    try {
      who = await identityOf(config, tokens);
    } catch (error) {
      if (error instanceof SsoFailure) throw error;
      throw new SsoFailure('token_rejected', `userinfo: ${(error as Error).message}`);
    }
    email = who.identity.email;
    if (!who.emailVerified) throw new SsoFailure('email_unverified', 'email_verified is not true');
    const domain = who.identity.email.split('@')[1] ?? '';
    if (!settings.allowed_domains.includes(domain)) {
      throw new SsoFailure('domain_not_allowed', `${domain} is not an allowed domain`);
    }
    const session = await ctx.db.transaction().execute(async (trx) => {
      const { personId, created } = await personOf(
        trx,
        who.identity,
        settings.workspace_id,
        claimed.link_person_id,
        now,
      );
      const member = await trx
        .selectFrom('memberships')
        .select('role')
        .where('workspace_id', '=', settings.workspace_id)
        .where('person_id', '=', personId)
        .executeTakeFirst();
      if (!member) {
        try {
          await checkTeamLimit(trx, settings.workspace_id, now, true);
        } catch (error) {
          if (error instanceof DomainError && error.kind === 'team_limit_reached') {
            throw new SsoFailure('team_limit_reached', error.detail);
          }
          throw error;
        }
        await trx
          .insertInto('memberships')
          .values({
            workspace_id: settings.workspace_id,
            person_id: personId,
            role: settings.default_role,
            created_at: now,
          })
          .execute();
        await recordAudit(trx, {
          actor: { personId },
          action: 'member.added',
          target: personId,
          detail: `as ${settings.default_role} by single sign-on${created ? ' (new account)' : ''}`,
          address: input.address,
          workspaceId: settings.workspace_id,
          at: now,
        });
      }
      const started = await startSession(trx, now, personId, input.address, input.presentedSession);
      await recordAudit(trx, {
        actor: { personId },
        action: 'session.signed_in',
        target: personId,
        detail: `sso ${settings.issuer}`,
        address: input.address,
        workspaceIds: await workspacesOf(trx, personId),
        at: now,
      });
      return started;
    });
    await ctx.db.deleteFrom('sso_attempts').where('state_hash', '=', claimed.state_hash).execute();
    return { token: session.token, returnPath: claimed.return_path };
  } catch (error) {
    const failure =
      error instanceof SsoFailure
        ? error
        : error instanceof KeyRingError
          ? new SsoFailure('invalid_state', error.message)
          : null;
    if (!failure) throw error;
    await recordAudit(ctx.db, {
      actor: {},
      action: 'session.sign_in_failed',
      target: email ?? null,
      detail: `sso ${failure.code}: ${failure.message}`.slice(0, 300),
      address: input.address,
      workspaceId,
      at: now,
    });
    throw failure;
  }
}
