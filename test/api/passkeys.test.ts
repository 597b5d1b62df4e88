import { generateKeyPairSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_ATTEMPTS_PER_ADDRESS, WEBAUTHN_CHALLENGE_MS } from '../../src/people/settings.ts';
import { signedInPerson, type Browser } from '../helpers/people.ts';
import { expectProblem, startTestService, workspaceWithKey, type TestService } from '../helpers/service.ts';
import { SoftwareAuthenticator, type SoftCredential } from '../helpers/webauthn-authenticator.ts';
import { auditEntries } from '../helpers/audit-log.ts';

// Passkeys through HTTP with a software authenticator (test/helpers/webauthn-authenticator.ts) that
// builds real attestation and assertion bytes; the service verifies them with @simplewebauthn/server.
// Each refusal case fails on the naive implementation named in it.
const ORIGIN = 'https://brand.example.test';
let t: TestService;
const authenticator = new SoftwareAuthenticator(ORIGIN, 'brand.example.test');
let addressN = 0;
/** Each test signs in from its own client address, so the per-address throttle is the throttle test's alone. */
const nextAddress = () => `198.51.100.${++addressN}`;

beforeAll(async () => {
  t = await startTestService({ publicUrl: ORIGIN });
});
afterAll(async () => {
  await t?.close();
});

function sessionCookie(res: LightMyRequestResponse): string | undefined {
  return res.cookies.find((c) => c.name === 'bh_session')?.value;
}

/** Registers a passkey for a signed-in browser through the API; the credential and its view. */
async function registerPasskey(b: Browser, name = 'Laptop') {
  const options = await b.request('POST', '/v1/auth/passkeys/registration-options');
  expect(options.statusCode, options.body).toBe(200);
  expect(options.json()).toMatchObject({
    rp: { id: 'brand.example.test' },
    user: { name: b.email },
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    attestation: 'none',
  });
  const { credential, response } = authenticator.register(options.json());
  const added = await b.request('POST', '/v1/auth/passkeys', { name, response });
  expect(added.statusCode, added.body).toBe(201);
  return { credential, passkey: added.json() as { id: string; name: string } };
}

async function signInOptions(address: string) {
  const res = await t.request({ method: 'POST', url: '/v1/auth/passkey/options', remoteAddress: address });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { challenge_id: string; options: { challenge: string; rpId?: string } };
}

function passkeySignIn(address: string, payload: object, cookie?: string) {
  return t.request({
    method: 'POST',
    url: '/v1/auth/passkey/sign-in',
    payload,
    remoteAddress: address,
    headers: cookie ? { cookie: `bh_session=${cookie}` } : {},
  });
}

/** A sign-in with `credential` from a fresh challenge; `opts` as the authenticator's assert. */
async function signInWith(
  credential: SoftCredential,
  opts: Parameters<SoftwareAuthenticator['assert']>[2] = {},
  address = nextAddress(),
) {
  const { challenge_id, options } = await signInOptions(address);
  return passkeySignIn(address, {
    challenge_id,
    response: authenticator.assert(options, credential, opts),
  });
}

/** The uniform refusal: 401 Sign-In Failed, and the same body whatever the reason. */
function refusal(res: LightMyRequestResponse) {
  const body = expectProblem(res, 401, 'Sign-In Failed');
  expect(sessionCookie(res)).toBeUndefined();
  const { request_id: _id, instance: _instance, ...rest } = body;
  return rest;
}

describe('passkeys', () => {
  it('registers a passkey and signs in with it: a new session id, the old cookie ends, the use recorded', async () => {
    const b = await signedInPerson(t);
    const { credential, passkey } = await registerPasskey(b, 'Work laptop');
    expect(passkey).toMatchObject({ name: 'Work laptop', transports: ['internal'], last_used_at: null });

    const list = await b.request('GET', '/v1/auth/passkeys');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([passkey]);
    expect(list.body).not.toContain(Buffer.from(credential.id).toString('base64url'));

    const address = nextAddress();
    const { challenge_id, options } = await signInOptions(address);
    expect(options).toMatchObject({ rpId: 'brand.example.test', userVerification: 'preferred' });
    expect(options).not.toHaveProperty('allowCredentials.0'); // no account named: discoverable credentials
    const res = await passkeySignIn(
      address,
      { challenge_id, response: authenticator.assert(options, credential) },
      b.cookie,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().person).toMatchObject({ id: b.personId, email: b.email });
    const fresh = sessionCookie(res)!;
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(b.cookie);
    expect(res.headers['set-cookie']).toMatch(/HttpOnly/);
    const now = await t.request({
      method: 'GET',
      url: '/v1/auth/session',
      headers: { cookie: `bh_session=${fresh}` },
    });
    expect(now.statusCode).toBe(200);
    expect(now.json().person.id).toBe(b.personId);
    const old = await t.request({
      method: 'GET',
      url: '/v1/auth/session',
      headers: { cookie: `bh_session=${b.cookie}` },
    });
    expect(old.statusCode).toBe(401);

    const used = await t.request({
      method: 'GET',
      url: '/v1/auth/passkeys',
      headers: { cookie: `bh_session=${fresh}` },
    });
    expect(used.json().data[0].last_used_at).not.toBeNull();
    const audit = await auditEntries(t.db, { personId: b.personId });
    expect(audit.map((a) => a.action)).toContain('passkey.registered');
    expect(audit.filter((a) => a.action === 'session.signed_in').map((a) => a.detail)).toContain(
      `passkey ${passkey.id}`,
    );
  });

  it('refuses a wrong signature and an unknown credential with one and the same 401', async () => {
    const b = await signedInPerson(t);
    const { credential } = await registerPasskey(b);
    // Naive: trusting the credential id without checking the signature signs the forger in.
    const forged = refusal(
      await signInWith(credential, {
        signWith: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
      }),
    );
    // An authenticator's credential that was never registered, claiming the person's user handle.
    const stranger = authenticator.newCredential(credential.userHandle);
    const unknown = refusal(await signInWith(stranger));
    expect(unknown).toEqual(forged);
    // And the passkey itself still works (the failures did not break it).
    expect((await signInWith(credential)).statusCode).toBe(200);
    const failures = await auditEntries(t.db, { action: 'session.sign_in_failed', detailLike: 'passkey%' });
    expect(failures.map((f) => f.detail)).toEqual(expect.arrayContaining(['passkey: credential']));
  });

  it('uses a challenge once: a second assertion for it is refused, even with a higher counter', async () => {
    const b = await signedInPerson(t);
    const { credential } = await registerPasskey(b);
    const address = nextAddress();
    const { challenge_id, options } = await signInOptions(address);
    const first = await passkeySignIn(address, {
      challenge_id,
      response: authenticator.assert(options, credential),
    });
    expect(first.statusCode, first.body).toBe(200);
    // Naive: keeping the challenge after use lets a captured (or re-made) assertion sign in again.
    refusal(
      await passkeySignIn(address, { challenge_id, response: authenticator.assert(options, credential) }),
    );
  });

  it('refuses a challenge past its 5 minutes', async () => {
    const b = await signedInPerson(t);
    const { credential } = await registerPasskey(b);
    const address = nextAddress();
    const { challenge_id, options } = await signInOptions(address);
    t.setNow(new Date(Date.now() + WEBAUTHN_CHALLENGE_MS + 1000));
    try {
      // Naive: no expiry on stored challenges.
      refusal(
        await passkeySignIn(address, { challenge_id, response: authenticator.assert(options, credential) }),
      );
    } finally {
      t.setNow(undefined);
    }
  });

  it('refuses a signature counter that did not move forward (a cloned authenticator)', async () => {
    const b = await signedInPerson(t);
    const { credential } = await registerPasskey(b);
    expect((await signInWith(credential, { counter: 5 })).statusCode).toBe(200);
    // Naive: not storing or not comparing the counter.
    refusal(await signInWith(credential, { counter: 3 }));
    refusal(await signInWith(credential, { counter: 5 }));
    expect((await signInWith(credential, { counter: 6 })).statusCode).toBe(200);
    const failures = await auditEntries(t.db, {
      personId: b.personId,
      action: 'session.sign_in_failed',
      detailLike: 'passkey%',
    });
    expect(failures.map((f) => f.detail?.split(': ')[1])).toEqual(['counter', 'counter']);
  });

  it("answers 404 for another person's passkey and keeps it; the owner removes it and it stops working", async () => {
    const owner = await signedInPerson(t);
    const other = await signedInPerson(t);
    const { credential, passkey } = await registerPasskey(owner);
    // Naive: deleting by id alone.
    expectProblem(await other.request('DELETE', `/v1/auth/passkeys/${passkey.id}`), 404);
    expect((await other.request('GET', '/v1/auth/passkeys')).json().data).toEqual([]);
    expect((await owner.request('GET', '/v1/auth/passkeys')).json().data).toHaveLength(1);
    expect((await owner.request('DELETE', `/v1/auth/passkeys/${passkey.id}`)).statusCode).toBe(200);
    expect((await owner.request('GET', '/v1/auth/passkeys')).json().data).toEqual([]);
    refusal(await signInWith(credential));
  });

  it('needs the CSRF token to register, and binds the registration challenge to its session', async () => {
    const b = await signedInPerson(t);
    // Naive: trusting the cookie alone on a state-changing request.
    expectProblem(
      await b.request('POST', '/v1/auth/passkeys/registration-options', undefined, {
        'x-csrf-token': 'wrong',
      }),
      403,
    );
    const options = await b.request('POST', '/v1/auth/passkeys/registration-options');
    const { response } = authenticator.register(options.json());
    expectProblem(
      await b.request('POST', '/v1/auth/passkeys', { name: 'x', response }, { 'x-csrf-token': '' }),
      403,
    );
    expect(
      (await t.request({ method: 'POST', url: '/v1/auth/passkeys/registration-options' })).statusCode,
    ).toBe(401);
    // An API key is not a person's session: it cannot list or manage passkeys.
    const { key } = await workspaceWithKey(t.db, { plan: 'enterprise' });
    expect((await t.request({ method: 'GET', url: '/v1/auth/passkeys', key })).statusCode).toBe(401);
    // Another session cannot complete the first one's registration (naive: one global challenge list).
    const other = await signedInPerson(t);
    const foreign = await other.request('POST', '/v1/auth/passkeys', { name: 'x', response });
    expectProblem(foreign, 400);
    // An attestation for another origin is refused.
    const again = await b.request('POST', '/v1/auth/passkeys/registration-options');
    const phished = authenticator.register(again.json(), { origin: 'https://brand-example.test' });
    expectProblem(
      await b.request('POST', '/v1/auth/passkeys', { name: 'x', response: phished.response }),
      400,
    );
    expect((await b.request('GET', '/v1/auth/passkeys')).json().data).toEqual([]);
  });

  it('throttles passkey sign-in attempts per address, valid ones included once past the limit', async () => {
    const b = await signedInPerson(t);
    const { credential } = await registerPasskey(b);
    const address = '203.0.113.9';
    const bogus = { challenge_id: 'nothing', response: authenticator.assert({ challenge: 'x' }, credential) };
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ADDRESS; i++) {
      const res = await passkeySignIn(address, bogus);
      expect(res.statusCode).toBe(401);
    }
    // Naive: no throttle, or one that counts only known credentials.
    const limited = await signInWith(credential, {}, address);
    expectProblem(limited, 429, 'Too Many Sign-In Attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await signInWith(credential)).statusCode).toBe(200);
  });
});
