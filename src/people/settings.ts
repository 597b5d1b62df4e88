/** A session ends after this long without a request (idle timeout). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A session ends this long after sign-in whatever its use (absolute timeout). */
export const SESSION_ABSOLUTE_MS = 14 * 24 * 60 * 60 * 1000;
/** How long an email-verification link stays valid. */
export const VERIFY_TOKEN_MS = 48 * 60 * 60 * 1000;
/** How long a password-reset link stays valid. */
export const RESET_TOKEN_MS = 60 * 60 * 1000;
/** Sign-in attempts counted per account (email address) and per client address in one window. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_ATTEMPTS_PER_ACCOUNT = 10;
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 100;
/** Sign-up and reset requests (each sends an email) per client address in one window. */
export const MAIL_REQUESTS_PER_ADDRESS = 20;
/** The session cookie: HttpOnly, Secure, SameSite=Lax, path / (docs/security.md). */
export const SESSION_COOKIE = 'bh_session';
/** The header a cookie-authenticated state-changing request carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** How long WebAuthn options (their challenge) stay usable: once, within this time. */
export const WEBAUTHN_CHALLENGE_MS = 5 * 60 * 1000;
/** Passkeys one person may register. */
export const PASSKEYS_PER_PERSON = 20;
