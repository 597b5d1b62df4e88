import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/admin/workspaces.ts';
import { createApiKey } from '../../src/admin/keys.ts';
import { expectProblem, startTestService, type TestService } from '../helpers/service.ts';
import { signedInPerson, type Browser } from '../helpers/people.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc.ts';
import { auditEntries } from '../helpers/audit-log.ts';

// Single sign-on through a real OpenID Connect provider (panva's oidc-provider) started on a
// loopback port; the browser's redirects are followed by hand, with a cookie jar per party.
const PUBLIC_URL = 'https://bh.test';
const REDIRECT_URI = `${PUBLIC_URL}/v1/auth/sso/callback`;

let op: TestProvider;
let issuer: string;
let CLIENT_ID: string;
let CLIENT_SECRET: string;
let t: TestService;

beforeAll(async () => {
  op = await startTestProvider(REDIRECT_URI);
  ({ issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } = op);
  t = await startTestService({ publicUrl: PUBLIC_URL }, { ALLOW_LOOPBACK_FETCH: 'true' });
});

afterAll(async () => {
  await t?.close();
  await op?.close();
});

/** Cookies of one party (the provider's domain), as a browser would keep them. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** One browser: its cookie at the service (`bh_sso`, `bh_session`) and its jar at the provider. */
interface Flow {
  binding: string;
  authorizationUrl: string;
}

async function start(query: string, sessionCookie?: string): Promise<Flow> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/auth/sso/start?${query}`,
    headers: sessionCookie ? { cookie: `bh_session=${sessionCookie}` } : {},
  });
  expect(res.statusCode, res.body).toBe(302);
  const location = String(res.headers.location);
  expect(location.startsWith(`${issuer}/`), location).toBe(true);
  const cookie = res.cookies.find((c) => c.name === 'bh_sso')!;
  expect(cookie).toMatchObject({ httpOnly: true, secure: true, path: '/v1/auth/sso/callback' });
  return { binding: cookie.value, authorizationUrl: location };
}

/** Follows the provider's redirects (login included) until it sends the browser back to us. */
async function atProvider(authorizationUrl: string, account: string): Promise<string> {
  op.signInAs(account);
  const jar = new Jar();
  let url = authorizationUrl;
  for (let hop = 0; hop < 8; hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res.headers);
    const next = res.headers.get('location');
    if (!next) throw new Error(`the provider answered ${res.status}: ${await res.text()}`);
    url = new URL(next, url).href;
    if (url.startsWith(REDIRECT_URI)) return url;
  }
  throw new Error('too many redirects at the provider');
}

async function callback(callbackUrl: string, binding: string | null, sessionCookie?: string) {
  const cookies = [binding ? `bh_sso=${binding}` : '', sessionCookie ? `bh_session=${sessionCookie}` : '']
    .filter(Boolean)
    .join('; ');
  const url = new URL(callbackUrl);
  return t.request({
    method: 'GET',
    url: `${url.pathname}${url.search}`,
    headers: cookies ? { cookie: cookies } : {},
  });
}

async function signInThroughProvider(query: string, account: string) {
  const flow = await start(query);
  const back = await atProvider(flow.authorizationUrl, account);
  return callback(back, flow.binding);
}

function ssoError(res: { statusCode: number; headers: Record<string, unknown> }): string | null {
  expect(res.statusCode).toBe(302);
  return new URL(String(res.headers.location), PUBLIC_URL).searchParams.get('sso_error');
}

let n = 0;
function account(email: string, verified = true): string {
  return op.account({ email, email_verified: verified, name: `Agent ${++n}` });
}

async function agencyWithSso(
  domain: string,
  defaultRole: 'admin' | 'member' | 'viewer' = 'member',
  plan: 'free' | 'agency' = 'agency',
) {
  const ws = await createWorkspace(t.db, { name: `${domain} agency`, plan, accountType: 'agency' });
  const owner = await signedInPerson(t, { workspaceId: ws.id, role: 'owner' });
  const res = await owner.request('PUT', '/v1/workspace/sso', {
    issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    allowed_domains: [domain.toUpperCase(), ` ${domain}`],
    default_role: defaultRole,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ws, owner };
}

describe('settings', () => {
  it('saves, reads and removes the provider; the secret is never returned; changes are audited', async () => {
    const { ws, owner } = await agencyWithSso('settings.example');
    const read = await owner.request('GET', '/v1/workspace/sso');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      issuer,
      client_id: CLIENT_ID,
      client_secret_set: true,
      allowed_domains: ['settings.example'],
      default_role: 'member',
      enabled: true,
      redirect_uri: REDIRECT_URI,
    });
    expect(read.body).not.toContain(CLIENT_SECRET);
    const stored = await t.db
      .selectFrom('sso_settings')
      .select('client_secret')
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(stored.client_secret).not.toContain(CLIENT_SECRET);
    // A change without the secret keeps the stored one (discovery still passes with it).
    const changed = await owner.request('PUT', '/v1/workspace/sso', {
      issuer,
      client_id: CLIENT_ID,
      allowed_domains: ['settings.example'],
      default_role: 'viewer',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.body).not.toContain(CLIENT_SECRET);
    expect((await owner.request('DELETE', '/v1/workspace/sso')).statusCode).toBe(200);
    expectProblem(await owner.request('GET', '/v1/workspace/sso'), 404, 'Not Found');
    const log = await auditEntries(t.db, { workspaceId: ws.id, action: 'sso.%' });
    expect(log.map((r) => r.action)).toEqual(Array(3).fill('sso.settings_changed'));
    expect(log.map((r) => r.detail!.split(':')[0])).toEqual(['set up', 'changed', 'removed']);
  });

  it('refuses an issuer whose discovery fails (422), an owner default role and a first save without secret', async () => {
    const ws = await createWorkspace(t.db, { name: 'bad', plan: 'pro' });
    const owner = await signedInPerson(t, { workspaceId: ws.id, role: 'owner' });
    const body = {
      client_id: CLIENT_ID,
      client_secret: 'x',
      allowed_domains: ['bad.example'],
      default_role: 'member',
    };
    const unreachable = await owner.request('PUT', '/v1/workspace/sso', {
      ...body,
      issuer: `${issuer}/nowhere`,
    });
    expect(expectProblem(unreachable, 422, 'Identity Provider Unusable').errors[0].parameter).toBe('issuer');
    expectProblem(
      await owner.request('PUT', '/v1/workspace/sso', { ...body, issuer: 'http://10.0.0.1' }),
      422,
      'Identity Provider Unusable',
    );
    expectProblem(
      await owner.request('PUT', '/v1/workspace/sso', { ...body, issuer, default_role: 'owner' }),
      400,
    );
    expectProblem(
      await owner.request('PUT', '/v1/workspace/sso', { ...body, issuer, allowed_domains: ['not a domain'] }),
      400,
    );
    const { client_secret: _, ...noSecret } = body;
    expectProblem(await owner.request('PUT', '/v1/workspace/sso', { ...noSecret, issuer }), 400);
  });

  it('is for owners and admins: members and viewers get 403, and so does every API key', async () => {
    const { ws } = await agencyWithSso('roles.example');
    const body = { issuer, client_id: CLIENT_ID, allowed_domains: ['roles.example'], default_role: 'member' };
    const expected: Record<string, number> = { owner: 200, admin: 200, member: 403, viewer: 403 };
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
      const person: Browser = await signedInPerson(t, { workspaceId: ws.id, role });
      expect((await person.request('GET', '/v1/workspace/sso')).statusCode, role).toBe(expected[role]);
      expect((await person.request('PUT', '/v1/workspace/sso', body)).statusCode, role).toBe(expected[role]);
    }
    const key = await createApiKey(t.db, { workspaceId: ws.id }, { scopes: ['read', 'write'] });
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.request({
        method,
        url: '/v1/workspace/sso',
        key: key.key,
        ...(method === 'PUT' ? { payload: body } : {}),
      });
      expectProblem(res, 403, 'Forbidden');
    }
    const viewer = await signedInPerson(t, { workspaceId: ws.id, role: 'viewer' });
    expectProblem(await viewer.request('DELETE', '/v1/workspace/sso'), 403, 'Forbidden');
    expect((await t.request({ method: 'GET', url: '/v1/workspace/sso' })).statusCode).toBe(401);
  });
});

describe('sign-in', () => {
  it('creates the person and the membership with the default role, then a second sign-in reuses them', async () => {
    const { ws } = await agencyWithSso('jit.example', 'viewer');
    const id = account('Ana@JIT.example');
    const first = await signInThroughProvider(`workspace=${ws.id}`, id);
    expect(first.statusCode, first.body).toBe(302);
    expect(first.headers.location).toBe('/app/');
    const session = first.cookies.find((c) => c.name === 'bh_session')!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    const me = await t.request({
      method: 'GET',
      url: '/v1/auth/session',
      headers: { cookie: `bh_session=${session.value}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().person).toMatchObject({ email: 'ana@jit.example', name: 'Agent ' + String(n) });
    expect(me.json().workspaces).toEqual([expect.objectContaining({ id: ws.id, role: 'viewer' })]);
    const person = await t.db
      .selectFrom('people')
      .select(['id', 'password_hash', 'email_verified_at'])
      .where('email', '=', 'ana@jit.example')
      .executeTakeFirstOrThrow();
    expect(person.password_hash).toBeNull();
    expect(person.email_verified_at).not.toBeNull();

    // Again, by email this time: the same person and membership, a new session id.
    const second = await signInThroughProvider('email=ana%40jit.example', id);
    expect(second.headers.location).toBe('/app/');
    const again = second.cookies.find((c) => c.name === 'bh_session')!.value;
    expect(again).not.toBe(session.value);
    expect(
      await t.db.selectFrom('people').select('id').where('email', '=', 'ana@jit.example').execute(),
    ).toHaveLength(1);
    const memberships = await t.db
      .selectFrom('memberships')
      .select('role')
      .where('person_id', '=', person.id)
      .execute();
    expect(memberships).toEqual([{ role: 'viewer' }]);
    const log = await auditEntries(t.db, { workspaceId: ws.id, personId: person.id });
    expect(log.map((r) => `${r.action} ${r.detail!.split(' ')[0]}`)).toEqual([
      'member.added as',
      'session.signed_in sso',
      'session.signed_in sso',
    ]);
  });

  it("lets an agency's person reach its client workspaces through the agency membership", async () => {
    const { ws } = await agencyWithSso('reach.example');
    const clientWs = await createWorkspace(t.db, { name: 'client', plan: 'pro', parentId: ws.id });
    const stranger = await createWorkspace(t.db, { name: 'stranger', plan: 'pro' });
    const res = await signInThroughProvider(`workspace=${ws.id}`, account('bo@reach.example'));
    const cookie = `bh_session=${res.cookies.find((c) => c.name === 'bh_session')!.value}`;
    const asClient = await t.request({
      method: 'GET',
      url: `/v1/platforms?workspace_id=${clientWs.id}`,
      headers: { cookie, 'x-workspace-id': clientWs.id },
    });
    expect(asClient.statusCode, asClient.body).toBe(200);
    const notVisible = await t.request({
      method: 'GET',
      url: `/v1/platforms?workspace_id=${stranger.id}`,
      headers: { cookie },
    });
    expectProblem(notVisible, 404, 'Not Found');
    const elsewhere = await t.request({
      method: 'GET',
      url: '/v1/workspace',
      headers: { cookie, 'x-workspace-id': stranger.id },
    });
    expectProblem(elsewhere, 403, 'Forbidden');
  });

  it('refuses an address outside the allowed domains and one the provider has not verified', async () => {
    const { ws } = await agencyWithSso('strict.example');
    expect(
      ssoError(await signInThroughProvider(`workspace=${ws.id}`, account('eve@elsewhere.example'))),
    ).toBe('domain_not_allowed');
    expect(
      ssoError(await signInThroughProvider(`workspace=${ws.id}`, account('cy@strict.example', false))),
    ).toBe('email_unverified');
    const people = await t.db
      .selectFrom('people')
      .select('id')
      .where('email', 'in', ['eve@elsewhere.example', 'cy@strict.example'])
      .execute();
    expect(people).toEqual([]);
    const failures = await t.db
      .selectFrom('audit_log')
      .select('detail')
      .where('workspace_id', '=', ws.id)
      .where('action', '=', 'session.sign_in_failed')
      .where('detail', 'like', 'sso %')
      .execute();
    expect(failures.map((f) => f.detail!.split(/[ :]/)[1]).sort()).toEqual([
      'domain_not_allowed',
      'email_unverified',
    ]);
  });

  it('refuses a callback in another browser (its own state cookie), without a cookie, and a replay', async () => {
    const { ws } = await agencyWithSso('state.example');
    const victim = await start(`workspace=${ws.id}`);
    const attacker = await start(`workspace=${ws.id}`);
    const back = await atProvider(victim.authorizationUrl, account('di@state.example'));
    // The attacker's browser, holding its own attempt's cookie, is handed the victim's callback.
    const stolen = await callback(back, attacker.binding);
    expect(ssoError(stolen)).toBe('invalid_state');
    expect(stolen.cookies.find((c) => c.name === 'bh_session')).toBeUndefined();
    // The state was claimed: not even the victim's browser may use it now.
    expect(ssoError(await callback(back, victim.binding))).toBe('invalid_state');
    // A fresh attempt completed without its cookie, then replayed with it.
    const fresh = await start(`workspace=${ws.id}`);
    const back2 = await atProvider(fresh.authorizationUrl, account('di2@state.example'));
    expect(ssoError(await callback(back2, null))).toBe('invalid_state');
    expect(ssoError(await callback(back2, fresh.binding))).toBe('invalid_state');
    // A good one works once; its replay is refused.
    const good = await start(`workspace=${ws.id}`);
    const back3 = await atProvider(good.authorizationUrl, account('di3@state.example'));
    expect((await callback(back3, good.binding)).headers.location).toBe('/app/');
    expect(ssoError(await callback(back3, good.binding))).toBe('invalid_state');
  });

  it('refuses an ID token whose nonce is not the attempt’s', async () => {
    const { ws } = await agencyWithSso('nonce.example');
    const flow = await start(`workspace=${ws.id}`);
    const tampered = new URL(flow.authorizationUrl);
    tampered.searchParams.set('nonce', 'a-nonce-the-service-never-made');
    const back = await atProvider(tampered.href, account('ed@nonce.example'));
    expect(ssoError(await callback(back, flow.binding))).toBe('token_rejected');
  });

  it('never takes over an existing account unless its person starts the sign-in while signed in', async () => {
    const { ws } = await agencyWithSso('link.example');
    const existing = await signedInPerson(t);
    await t.db
      .updateTable('people')
      .set({ email: 'fay@link.example' })
      .where('id', '=', existing.personId)
      .execute();
    const id = account('fay@link.example');
    expect(ssoError(await signInThroughProvider(`workspace=${ws.id}`, id))).toBe('account_exists');
    // Signed in, the same person links the identity, then signs in through it alone.
    const flow = await start(`workspace=${ws.id}`, existing.cookie);
    const back = await atProvider(flow.authorizationUrl, id);
    const linked = await callback(back, flow.binding, existing.cookie);
    expect(linked.headers.location).toBe('/app/');
    const later = await signInThroughProvider(`workspace=${ws.id}`, id);
    const cookie = `bh_session=${later.cookies.find((c) => c.name === 'bh_session')!.value}`;
    const me = await t.request({ method: 'GET', url: '/v1/auth/session', headers: { cookie } });
    expect(me.json().person.id).toBe(existing.personId);
  });

  it("keeps to the plan's team limit, and finds no workspace by an address two workspaces allow", async () => {
    const { ws } = await agencyWithSso('full.example', 'member', 'free');
    expect(ssoError(await signInThroughProvider(`workspace=${ws.id}`, account('hal@full.example')))).toBe(
      'team_limit_reached',
    );
    expect(
      await t.db.selectFrom('people').select('id').where('email', '=', 'hal@full.example').execute(),
    ).toEqual([]);
    await agencyWithSso('shared.example');
    await agencyWithSso('shared.example');
    const ambiguous = await t.request({
      method: 'GET',
      url: '/v1/auth/sso/start?email=ivy%40shared.example',
    });
    expect(ssoError(ambiguous)).toBe('sso_unavailable');
  });

  it('sends a start without usable single sign-on back to the dashboard, and refuses a bad query (400)', async () => {
    const plain = await createWorkspace(t.db, { name: 'plain', plan: 'pro' });
    expect(
      ssoError(await t.request({ method: 'GET', url: `/v1/auth/sso/start?workspace=${plain.id}` })),
    ).toBe('sso_unavailable');
    expect(
      ssoError(await t.request({ method: 'GET', url: '/v1/auth/sso/start?email=x%40unknown.example' })),
    ).toBe('sso_unavailable');
    expectProblem(await t.request({ method: 'GET', url: '/v1/auth/sso/start' }), 400);
    expectProblem(
      await t.request({
        method: 'GET',
        url: `/v1/auth/sso/start?workspace=${plain.id}&return_to=https://evil.example/`,
      }),
      400,
    );
  });
});
