import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { SESSION_IDLE_MS, SIGN_IN_ATTEMPTS_PER_ACCOUNT } from '../../src/people/settings.ts';
import { auditEntries } from '../helpers/audit-log.ts';

// Sign-up, email verification, password sign-in and sessions through HTTP, with the mail read
// from a real SMTP server. Each attack test fails on the naive implementation named in it.
let smtp: TestSmtpServer;
let t: TestService;
let n = 0;

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestService({}, { SMTP_URL: smtp.url, MAIL_FROM: 'Brand Health <hello@example.test>' });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const PASSWORD = 'violet-harbour-lantern-42';

function post(url: string, payload?: object, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url, ...(payload ? { payload } : {}), headers });
}

async function tokenFrom(email: string, subject: string): Promise<string> {
  const mail = await smtp.waitFor((m) => m.envelope.to.includes(email) && m.parsed.subject === subject);
  // The link opens the dashboard's page for the token (served at /app/).
  const match = /\/app\/#\/(?:verify-email|reset-password)\?token=([A-Za-z0-9_-]+)/.exec(
    mail.parsed.text ?? '',
  );
  expect(match).not.toBeNull();
  return decodeURIComponent(match![1]!);
}

function sessionCookie(res: LightMyRequestResponse) {
  return res.cookies.find((c) => c.name === 'bh_session');
}

async function newPerson(): Promise<string> {
  const email = `person${++n}-${Date.now()}@example.test`;
  const res = await post('/v1/auth/sign-up', { email, name: 'Ana Silva', password: PASSWORD });
  expect(res.statusCode).toBe(202);
  const token = await tokenFrom(email, 'Confirm your email address');
  expect((await post('/v1/auth/verify-email', { token })).statusCode).toBe(200);
  return email;
}

async function signIn(email: string, cookie?: string) {
  const res = await post(
    '/v1/auth/sign-in',
    { email, password: PASSWORD },
    cookie ? { cookie: `bh_session=${cookie}` } : {},
  );
  expect(res.statusCode).toBe(200);
  return { cookie: sessionCookie(res)!.value, csrf: res.json().csrf_token as string, res };
}

function session(cookie: string) {
  return t.request({ method: 'GET', url: '/v1/auth/session', headers: { cookie: `bh_session=${cookie}` } });
}

/** A problem without the parts that differ per request. */
function shape(res: LightMyRequestResponse) {
  const body = res.json();
  delete body.request_id;
  delete body.instance;
  return { status: res.statusCode, body };
}

describe('sign-up and sign-in', () => {
  it('signs up, confirms the address from the emailed link, signs in with a secure session cookie', async () => {
    const email = `ana-${Date.now()}@example.test`;
    expect((await post('/v1/auth/sign-up', { email, name: 'Ana', password: PASSWORD })).statusCode).toBe(202);
    // Not confirmed yet: the same answer as a wrong password.
    const early = await post('/v1/auth/sign-in', { email, password: PASSWORD });
    expect(early.statusCode).toBe(401);
    const token = await tokenFrom(email, 'Confirm your email address');
    expect((await post('/v1/auth/verify-email', { token })).statusCode).toBe(200);
    // The link works once.
    const again = await post('/v1/auth/verify-email', { token });
    expect(again.statusCode).toBe(400);
    expect(again.json().title).toBe('Invalid Token');

    const { res, cookie } = await signIn(email);
    const set = sessionCookie(res)!;
    expect(set).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
    expect(res.json().person).toMatchObject({ email, name: 'Ana' });
    const me = await session(cookie);
    expect(me.statusCode).toBe(200);
    expect(me.json().person.email).toBe(email);
    const row = await t.db
      .selectFrom('people')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
  });

  it('refuses common and short passwords', async () => {
    for (const password of ['password123', 'qwertyuiop', 'short']) {
      const res = await post('/v1/auth/sign-up', { email: `weak${++n}@example.test`, name: 'W', password });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].parameter).toBe('password');
    }
  });

  it('answers sign-up, sign-in and reset the same whether or not the account exists (no enumeration)', async () => {
    const known = await newPerson();
    const unknown = `nobody-${Date.now()}@example.test`;
    const signUpKnown = await post('/v1/auth/sign-up', { email: known, name: 'X', password: PASSWORD });
    const signUpUnknown = await post('/v1/auth/sign-up', { email: unknown, name: 'X', password: PASSWORD });
    expect(signUpKnown.statusCode).toBe(signUpUnknown.statusCode);
    expect(signUpKnown.json()).toEqual(signUpUnknown.json());
    // The owner of the known address learns of the attempt by email, not the caller.
    await smtp.waitFor(
      (m) => m.envelope.to.includes(known) && /tried to sign up/.test(m.parsed.subject ?? ''),
    );

    const wrongPassword = await post('/v1/auth/sign-in', { email: known, password: 'not-the-password-9' });
    const noAccount = await post('/v1/auth/sign-in', {
      email: `x${unknown}`,
      password: 'not-the-password-9',
    });
    expect(shape(wrongPassword)).toEqual(shape(noAccount));
    expect(wrongPassword.statusCode).toBe(401);

    const resetKnown = await post('/v1/auth/password-reset', { email: known });
    const resetUnknown = await post('/v1/auth/password-reset', { email: `y${unknown}` });
    expect(resetKnown.statusCode).toBe(202);
    expect(resetKnown.json()).toEqual(resetUnknown.json());
  });

  it('throttles guessing per account, for unknown accounts alike, even once the right password comes', async () => {
    const email = await newPerson();
    const unknown = `ghost-${Date.now()}@example.test`;
    const statuses = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ACCOUNT; i++) {
      statuses.known.push(
        (await post('/v1/auth/sign-in', { email, password: `guess-number-${i}` })).statusCode,
      );
      statuses.unknown.push(
        (await post('/v1/auth/sign-in', { email: unknown, password: `guess-number-${i}` })).statusCode,
      );
    }
    expect(statuses.known).toEqual(Array(SIGN_IN_ATTEMPTS_PER_ACCOUNT).fill(401));
    expect(statuses.unknown).toEqual(statuses.known);
    // A naive implementation lets the right password through here.
    const right = await post('/v1/auth/sign-in', { email, password: PASSWORD });
    const ghost = await post('/v1/auth/sign-in', { email: unknown, password: PASSWORD });
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(shape(right)).toEqual(shape(ghost));
    // The account is counted by address, not by letter case.
    expect(
      (await post('/v1/auth/sign-in', { email: email.toUpperCase(), password: PASSWORD })).statusCode,
    ).toBe(429);
  });
});

describe('sessions', () => {
  it('never adopts a session id planted before sign-in (session fixation)', async () => {
    const victim = await newPerson();
    const attacker = await newPerson();
    const planted = 'attacker-chosen-session-id-0123456789';
    const fresh = await signIn(victim, planted);
    expect(fresh.cookie).not.toBe(planted);
    expect((await session(planted)).statusCode).toBe(401);
    // An attacker's own real session planted in the victim's browser ends at the victim's sign-in
    // and never becomes the victim's.
    const attackers = await signIn(attacker);
    const after = await signIn(victim, attackers.cookie);
    expect(after.cookie).not.toBe(attackers.cookie);
    expect((await session(attackers.cookie)).statusCode).toBe(401);
    expect((await session(after.cookie)).json().person.email).toBe(victim);
  });

  it('refuses cookie-authenticated state changes without the CSRF token', async () => {
    const email = await newPerson();
    const { cookie, csrf } = await signIn(email);
    const headers = { cookie: `bh_session=${cookie}` };
    const none = await post('/v1/auth/sign-out', undefined, headers);
    expect(none.statusCode).toBe(403);
    const wrong = await post('/v1/auth/sign-out', undefined, {
      ...headers,
      'x-csrf-token': `${csrf.slice(1)}x`,
    });
    expect(wrong.statusCode).toBe(403);
    // Still signed in: the forged requests did nothing.
    expect((await session(cookie)).statusCode).toBe(200);
    const ok = await post('/v1/auth/sign-out', undefined, { ...headers, 'x-csrf-token': csrf });
    expect(ok.statusCode).toBe(200);
    expect((await session(cookie)).statusCode).toBe(401);
  });

  it('ends a session idle too long, and every session on sign out everywhere', async () => {
    const email = await newPerson();
    const start = new Date();
    t.setNow(start);
    try {
      const idle = await signIn(email);
      t.setNow(new Date(start.getTime() + SESSION_IDLE_MS + 1000));
      expect((await session(idle.cookie)).statusCode).toBe(401);
    } finally {
      t.setNow(undefined);
    }
    const a = await signIn(email);
    const b = await signIn(email);
    const res = await post('/v1/auth/sign-out-everywhere', undefined, {
      cookie: `bh_session=${a.cookie}`,
      'x-csrf-token': a.csrf,
    });
    expect(res.json()).toEqual({ sessions_ended: 2 });
    expect((await session(a.cookie)).statusCode).toBe(401);
    expect((await session(b.cookie)).statusCode).toBe(401);
  });

  it('resets a password by email: a refused password keeps the link, success ends every session', async () => {
    const email = await newPerson();
    const before = await signIn(email);
    expect((await post('/v1/auth/password-reset', { email })).statusCode).toBe(202);
    const token = await tokenFrom(email, 'Reset your password');
    expect(
      (await post('/v1/auth/password-reset/confirm', { token, password: 'password1234' })).statusCode,
    ).toBe(400);
    const fresh = 'quiet-meadow-compass-77';
    expect((await post('/v1/auth/password-reset/confirm', { token, password: fresh })).statusCode).toBe(200);
    expect((await post('/v1/auth/password-reset/confirm', { token, password: fresh })).statusCode).toBe(400);
    expect((await session(before.cookie)).statusCode).toBe(401);
    expect((await post('/v1/auth/sign-in', { email, password: fresh })).statusCode).toBe(200);
    expect((await post('/v1/auth/sign-in', { email, password: PASSWORD })).statusCode).toBe(401);
  });
});

describe('audit log', () => {
  it('records sign-ins, failures and sign-outs with actor, address and target; rows cannot be updated', async () => {
    const email = await newPerson();
    await post('/v1/auth/sign-in', { email, password: 'not-the-password-9' });
    const { cookie, csrf, res } = await signIn(email);
    const personId = res.json().person.id as string;
    await post('/v1/auth/sign-out', undefined, { cookie: `bh_session=${cookie}`, 'x-csrf-token': csrf });
    const rows = await auditEntries(t.db, { personId });
    expect(rows.map((r) => r.action)).toEqual([
      'session.sign_in_failed',
      'session.signed_in',
      'session.signed_out',
    ]);
    expect(rows[0]).toMatchObject({ target: email, address: '127.0.0.1' });
    await expect(
      t.db.updateTable('audit_log').set({ action: 'edited' }).where('id', '=', rows[0]!.id).execute(),
    ).rejects.toThrow(/never updated/);
  });
});
