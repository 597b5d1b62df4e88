import { useState } from 'preact/hooks';
import createFetchClient from 'openapi-fetch';
import type { paths } from '../../sdk/src/schema.d.ts';
import {
  NotASubscriberKey,
  openSession,
  signInWithPassword,
  signInWithSubscriberKey,
  unwrap,
  type Session,
} from './api.ts';
import { ErrorBox, useAction } from './ui.tsx';
import { PasskeySignInButton } from './views/account.tsx';
import { SsoSignIn } from './views/sso.tsx';

/**
 * Signing in and the pages emailed links open: sign-in (password, passkey, single sign-on), sign-up,
 * a forgotten password, confirming an address, setting a new password and accepting an invitation.
 * None of these calls needs a workspace; the session cookie is set by the service's answers.
 */
const api = createFetchClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });

type Mode = 'sign-in' | 'sign-up' | 'forgot';

/** The token of an emailed link: `#/<page>?token=...` (the fragment never reaches a server). */
export function linkToken(): string | null {
  const query = location.hash.split('?')[1];
  return query ? new URLSearchParams(query).get('token') : null;
}

/** A form's submit: busy while it runs, its error shown under it (useAction). */
function useSubmit(work: () => Promise<void>) {
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    return run(work);
  };
  return { busy, error, submit };
}

function PasswordSignIn({ onSession }: { onSession: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, submit } = useSubmit(async () => onSession(await signInWithPassword(email, password)));
  return (
    <form class="card" onSubmit={submit}>
      <h2>Sign in</h2>
      <label for="signin-email">Email</label>
      <input
        id="signin-email"
        type="email"
        autocomplete="username webauthn"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <label for="signin-password">Password</label>
      <input
        id="signin-password"
        type="password"
        autocomplete="current-password"
        required
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy || !email.includes('@') || !password}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      {error !== null && <ErrorBox error={error} />}
    </form>
  );
}

function SignUp() {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    unwrap(
      await api.POST('/v1/auth/sign-up', { body: { email: email.trim(), name: name.trim(), password } }),
    );
    setSent(true);
  });
  if (sent)
    return (
      <div class="card" role="status" data-testid="signup-sent">
        <h2>Check your email</h2>
        <p>
          If <strong>{email.trim()}</strong> can be used, a message with a link to confirm it is on its way.
          Open the link, then sign in.
        </p>
      </div>
    );
  return (
    <form class="card" onSubmit={submit}>
      <h2>Create an account</h2>
      <label for="signup-name">Your name</label>
      <input
        id="signup-name"
        autocomplete="name"
        required
        maxLength={200}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="signup-email">Email</label>
      <input
        id="signup-email"
        type="email"
        autocomplete="email"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <label for="signup-password">Password (at least 10 characters, not a common one)</label>
      <input
        id="signup-password"
        type="password"
        autocomplete="new-password"
        required
        minLength={10}
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy || !email.includes('@') || !name.trim() || password.length < 10}>
        {busy ? 'Creating…' : 'Create the account'}
      </button>
      {error !== null && <ErrorBox error={error} />}
    </form>
  );
}

function Forgot() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    unwrap(await api.POST('/v1/auth/password-reset', { body: { email: email.trim() } }));
    setSent(true);
  });
  if (sent)
    return (
      <div class="card" role="status">
        <h2>Check your email</h2>
        <p>
          If {email.trim()} has an account, a link to set a new password is on its way (it works for an hour).
        </p>
      </div>
    );
  return (
    <form class="card" onSubmit={submit}>
      <h2>Forgot your password?</h2>
      <label for="forgot-email">Email</label>
      <input
        id="forgot-email"
        type="email"
        autocomplete="email"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <button type="submit" disabled={busy || !email.includes('@')}>
        Email me a link
      </button>
      {error !== null && <ErrorBox error={error} />}
    </form>
  );
}

/** TACSI subscribers have a key and no people: their entry to the TACSI view. */
function SubscriberKey({ onSession }: { onSession: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const { busy, error, submit } = useSubmit(async () => onSession(await signInWithSubscriberKey(key)));
  return (
    <details class="card">
      <summary>TACSI subscribers: open the index with your subscriber key</summary>
      <form onSubmit={submit}>
        <p>
          The key stays in this browser tab only (session storage) and is sent to the API in a header, never
          in a link.
        </p>
        <label for="subscriber-key">Subscriber key</label>
        <input
          id="subscriber-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !key.trim()}>
          Open the TACSI index
        </button>
        {error instanceof NotASubscriberKey ? (
          <div class="error" role="alert">
            <p>{error.message}</p>
          </div>
        ) : (
          error !== null && <ErrorBox error={error} />
        )}
      </form>
    </details>
  );
}

export function SignInPage({ onSession }: { onSession: (s: Session) => void }) {
  const [mode, setMode] = useState<Mode>('sign-in');
  const afterPasskeyOrSso = async () => {
    const session = await openSession();
    if (session) onSession(session);
  };
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Brand Health</h1>
      {mode === 'sign-in' && (
        <>
          <PasswordSignIn onSession={onSession} />
          <p class="links">
            <button class="link" type="button" onClick={() => setMode('sign-up')}>
              Create an account
            </button>{' '}
            ·{' '}
            <button class="link" type="button" onClick={() => setMode('forgot')}>
              Forgot your password?
            </button>
          </p>
          <PasskeySignInButton onSignedIn={() => void afterPasskeyOrSso()} />
          <SsoSignIn />
          <SubscriberKey onSession={onSession} />
        </>
      )}
      {mode === 'sign-up' && <SignUp />}
      {mode === 'forgot' && <Forgot />}
      {mode !== 'sign-in' && (
        <p class="links">
          <button class="link" type="button" onClick={() => setMode('sign-in')}>
            Back to sign-in
          </button>
        </p>
      )}
    </main>
  );
}

/** The page a confirmation link opens: confirms the address, then offers sign-in. */
export function VerifyEmailPage() {
  const token = linkToken();
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    unwrap(await api.POST('/v1/auth/verify-email', { body: { token: token ?? '' } }));
    setDone(true);
  });
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Confirm your email address</h1>
      {done ? (
        <div class="card" role="status" data-testid="verified">
          <p>Your address is confirmed.</p>
          <a href="#/">Sign in</a>
        </div>
      ) : (
        <form class="card" onSubmit={submit}>
          <p>Confirm the address this link was sent to.</p>
          <button type="submit" disabled={busy || !token}>
            Confirm my address
          </button>
          {error !== null && <ErrorBox error={error} />}
        </form>
      )}
    </main>
  );
}

/** The page a reset link opens: a new password (every session of the person ends). */
export function ResetPasswordPage() {
  const token = linkToken();
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    unwrap(await api.POST('/v1/auth/password-reset/confirm', { body: { token: token ?? '', password } }));
    setDone(true);
  });
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Set a new password</h1>
      {done ? (
        <div class="card" role="status">
          <p>Your password is changed, and every session of your account has ended.</p>
          <a href="#/">Sign in</a>
        </div>
      ) : (
        <form class="card" onSubmit={submit}>
          <label for="reset-password">New password (at least 10 characters)</label>
          <input
            id="reset-password"
            type="password"
            autocomplete="new-password"
            required
            minLength={10}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy || !token || password.length < 10}>
            Set the password
          </button>
          {error !== null && <ErrorBox error={error} />}
        </form>
      )}
    </main>
  );
}

/**
 * The page an invitation link opens. Signed in, it joins as that person; otherwise a name and a
 * password create the account for the invited address (the link proves the address).
 */
export function AcceptInvitationPage({
  session,
  onJoined,
}: {
  session: Session | null;
  onJoined: (workspaceId: string) => void;
}) {
  const token = linkToken();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState(false);
  const signedIn = session?.kind === 'workspace' || session?.kind === 'no-workspace' ? session : null;
  const { busy, error, submit } = useSubmit(async () => {
    const headers: Record<string, string> = signedIn ? { 'X-CSRF-Token': signedIn.csrf } : {};
    const joined = unwrap(
      await api.POST('/v1/invitations/accept', {
        headers,
        body: signedIn ? { token: token ?? '' } : { token: token ?? '', name: name.trim(), password },
      }),
    );
    if (signedIn) onJoined(joined.workspace_id);
    else setCreated(true);
  });
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <h1>Accept the invitation</h1>
      {created ? (
        <div class="card" role="status" data-testid="invitation-accepted">
          <p>Your account is ready and you have joined the workspace. Sign in with the invited address.</p>
          <a href="#/">Sign in</a>
        </div>
      ) : (
        <form class="card" onSubmit={submit}>
          {signedIn ? (
            <p>
              Join as <strong>{signedIn.person.email}</strong>.
            </p>
          ) : (
            <>
              <p>
                New here? Choose your name and a password. Already have an account? <a href="#/">Sign in</a>{' '}
                first, then open the link again.
              </p>
              <label for="invite-name">Your name</label>
              <input
                id="invite-name"
                autocomplete="name"
                required
                value={name}
                onInput={(e) => setName(e.currentTarget.value)}
              />
              <label for="invite-password">Password (at least 10 characters)</label>
              <input
                id="invite-password"
                type="password"
                autocomplete="new-password"
                required
                minLength={10}
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </>
          )}
          <button
            type="submit"
            disabled={busy || !token || (!signedIn && (!name.trim() || password.length < 10))}
          >
            Join the workspace
          </button>
          {error !== null && <ErrorBox error={error} />}
        </form>
      )}
    </main>
  );
}
