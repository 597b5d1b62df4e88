import type { LightMyRequestResponse } from 'fastify';
import { hashPassword } from '../../src/people/password.ts';
import type { Role } from '../../src/core/permissions.ts';
import type { TestService } from './service.ts';

export const PASSWORD = 'violet-harbour-lantern-42';
let hashed: Promise<string> | undefined;
let n = 0;

/** A signed-in browser: its cookie and CSRF token, sent with every request made through it. */
export interface Browser {
  personId: string;
  email: string;
  cookie: string;
  csrf: string;
  request(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

/**
 * A person with a confirmed account (one password hash for all of a test file's people: scrypt is
 * slow), optionally a member of `workspaceId` with `role`, signed in through the API.
 */
export async function signedInPerson(
  t: TestService,
  membership?: { workspaceId: string; role: Role },
): Promise<Browser> {
  hashed ??= hashPassword(PASSWORD);
  const email = `person${++n}-${process.pid}@example.test`;
  const personId = `per_test_${n}_${process.pid}`;
  await t.db
    .insertInto('people')
    .values({
      id: personId,
      email,
      name: `Person ${n}`,
      password_hash: await hashed,
      email_verified_at: new Date(),
    })
    .execute();
  if (membership) {
    await t.db
      .insertInto('memberships')
      .values({ workspace_id: membership.workspaceId, person_id: personId, role: membership.role })
      .execute();
  }
  return signIn(t, email, personId);
}

export async function signIn(t: TestService, email: string, personId: string): Promise<Browser> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/auth/sign-in',
    payload: { email, password: PASSWORD },
  });
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === 'bh_session')!.value;
  const csrf = res.json().csrf_token as string;
  return {
    personId,
    email,
    cookie,
    csrf,
    request(method, url, payload, headers = {}) {
      return t.request({
        method,
        url,
        ...(payload ? { payload } : {}),
        headers: { cookie: `bh_session=${cookie}`, 'x-csrf-token': csrf, ...headers },
      });
    },
  };
}
