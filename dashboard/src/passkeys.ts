import createFetchClient from 'openapi-fetch';
import { startAuthentication, startRegistration, browserSupportsWebAuthn } from '@simplewebauthn/browser';
import type { Ok } from '../../sdk/src/client.ts';
import type { paths } from '../../sdk/src/schema.d.ts';
import { unwrap } from './api.ts';

/**
 * Passkeys (WebAuthn) for the signed-in person, through @simplewebauthn/browser. These calls are
 * authenticated by the session cookie (HttpOnly: never read here) and, for changes, the session's
 * CSRF token, which GET /v1/auth/session returns; no API key is involved. The browser keeps the
 * private key; the service keeps the public key and the pending challenge.
 */
const api = createFetchClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

export type Passkey = Ok<'/v1/auth/passkeys', 'get'>['data'][number];
export type PersonSession = Ok<'/v1/auth/session', 'get'>;

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** The signed-in person of the session cookie, or null when there is none. */
export async function currentPerson(): Promise<PersonSession | null> {
  const res = await api.GET('/v1/auth/session');
  if (res.response.status === 401) return null;
  return unwrap(res);
}

async function csrf(): Promise<string> {
  const person = await currentPerson();
  if (!person) throw new Error('Sign in first.');
  return person.csrf_token;
}

export async function listPasskeys(): Promise<Passkey[]> {
  return unwrap(await api.GET('/v1/auth/passkeys')).data;
}

/** Creates a passkey on this device (the browser asks the person) and registers it under `name`. */
export async function registerPasskey(name: string): Promise<Passkey> {
  const headers = { 'X-CSRF-Token': await csrf() };
  const options = unwrap(await api.POST('/v1/auth/passkeys/registration-options', { headers }));
  const response = await startRegistration({ optionsJSON: options as never });
  return unwrap(
    await api.POST('/v1/auth/passkeys', { headers, body: { name, response: response as never } }),
  );
}

export async function removePasskey(id: string): Promise<void> {
  const headers = { 'X-CSRF-Token': await csrf() };
  unwrap(await api.DELETE('/v1/auth/passkeys/{id}', { params: { path: { id } }, headers }));
}

/**
 * Signs in with a passkey: no email typed, the browser offers the passkeys it holds for this site.
 * On success the session cookie is set by the answer; its body is the session (person, CSRF token,
 * workspaces), as after a password sign-in.
 */
export async function signInWithPasskey(): Promise<PersonSession> {
  const { challenge_id, options } = unwrap(await api.POST('/v1/auth/passkey/options'));
  const response = await startAuthentication({ optionsJSON: options as never });
  return unwrap(
    await api.POST('/v1/auth/passkey/sign-in', { body: { challenge_id, response: response as never } }),
  );
}
