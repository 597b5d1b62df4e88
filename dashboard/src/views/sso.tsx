import { useState } from 'preact/hooks';
import { ProblemError, unwrap } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import { ConfirmButton, ErrorBox, Section, useAsync, when, useAction } from '../ui.tsx';

/**
 * Single sign-on: the "Sign in with SSO" part of the sign-in page (an address, then the browser goes to
 * the workspace's identity provider), what to do when a sign-in came back refused (`?sso_error=`), and
 * the owners' and admins' settings section (docs/security.md "Single sign-on").
 */

/** What each `sso_error` code tells the person to do. */
const SSO_ERRORS: Record<string, string> = {
  sso_unavailable:
    'Single sign-on is not set up for this address or workspace. Sign in with your password, or ask your administrator.',
  too_many_attempts: 'Too many sign-in attempts from this network. Wait a few minutes, then try again.',
  provider_unreachable: "Your organisation's sign-in service did not answer. Try again in a moment.",
  invalid_state:
    'That sign-in link expired or was opened in another browser. Start again from this page, in this browser.',
  provider_refused:
    "Your organisation's sign-in service did not let you in. Try again, or ask your administrator.",
  token_rejected: "Your organisation's sign-in answer could not be verified. Start again from this page.",
  email_unverified: 'Your organisation has not confirmed your email address. Ask your administrator.',
  domain_not_allowed:
    "Your email address's domain is not allowed for this workspace. Ask your administrator.",
  account_exists:
    'An account with your address already exists. Sign in with your password, then link single sign-on from Settings › Single sign-on.',
  team_limit_reached: 'The workspace has no room for another person on its plan. Ask your administrator.',
  unexpected: 'Something went wrong signing you in. Try again; if it keeps happening, contact support.',
};

/** The refusal the browser was sent back with, in words (null when none). */
export function ssoErrorMessage(search = location.search): string | null {
  const code = new URLSearchParams(search).get('sso_error');
  if (code === null) return null;
  return SSO_ERRORS[code] ?? SSO_ERRORS.unexpected!;
}

/** "Sign in with SSO" on the sign-in page: an address, then off to the provider. */
export function SsoSignIn() {
  const [email, setEmail] = useState('');
  const refused = ssoErrorMessage();
  return (
    <form
      class="card"
      method="get"
      action="/v1/auth/sso/start"
      onSubmit={(e) => {
        e.preventDefault();
        location.assign(`/v1/auth/sso/start?email=${encodeURIComponent(email.trim())}`);
      }}
    >
      <h2>Sign in with SSO</h2>
      {refused && (
        <div class="error" role="alert" data-testid="sso-error">
          <p>
            <strong>Single sign-on did not sign you in.</strong>
          </p>
          <p>{refused}</p>
        </div>
      )}
      <p>If your organisation signs you in with its own identity provider, enter your work address.</p>
      <label for="sso-email">Work email</label>
      <input
        id="sso-email"
        name="email"
        type="email"
        autocomplete="email"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <button type="submit" disabled={!email.includes('@')}>
        Sign in with SSO
      </button>
    </form>
  );
}

type Role = 'admin' | 'member' | 'viewer';

/** Owners and admins set up the workspace's identity provider; others are told who can. */
export function SsoView({ session }: ViewProps) {
  const { client } = session;
  const [settings, reload] = useAsync(
    async (signal) => {
      const res = await client.GET('/v1/workspace/sso', { signal });
      if (res.response.status === 404) return null;
      return unwrap(res);
    },
    [client],
  );
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [enabled, setEnabled] = useState(true);
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const { error, busy, run } = useAction();
  const [saved, setSaved] = useState(false);

  if (settings.state === 'ready' && settings.value && loadedFor !== settings.value.updated_at) {
    setLoadedFor(settings.value.updated_at);
    setIssuer(settings.value.issuer);
    setClientId(settings.value.client_id);
    setDomains(settings.value.allowed_domains.join(', '));
    setRole(settings.value.default_role);
    setEnabled(settings.value.enabled);
  }

  if (settings.state === 'error') {
    const denied = settings.error instanceof ProblemError && settings.error.status === 403;
    return (
      <>
        <h1>Single sign-on</h1>
        {denied ? (
          <p>Only the workspace's owners and admins, signed in, can see and change single sign-on.</p>
        ) : (
          <ErrorBox error={settings.error} />
        )}
      </>
    );
  }
  const current = settings.state === 'ready' ? settings.value : null;

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      setSaved(false);
      unwrap(
        await client.PUT('/v1/workspace/sso', {
          body: {
            issuer: issuer.trim(),
            client_id: clientId.trim(),
            ...(secret ? { client_secret: secret } : {}),
            allowed_domains: domains
              .split(/[\s,]+/)
              .map((d) => d.trim())
              .filter(Boolean),
            default_role: role,
            enabled,
          },
        }),
      );
      setSecret('');
      setSaved(true);
      reload();
    });
  };
  const remove = () =>
    run(async () => {
      unwrap(await client.DELETE('/v1/workspace/sso'));
      setLoadedFor(null);
      reload();
    });

  return (
    <>
      <h1>Single sign-on</h1>
      <Section title={current ? 'Identity provider' : 'Set up single sign-on'}>
        <p>
          People whose verified work address is in an allowed domain sign in through your OpenID Connect
          provider and join this workspace with the default role (and reach its client workspaces).
          {current?.redirect_uri && (
            <>
              {' '}
              Register <code data-testid="sso-redirect-uri">{current.redirect_uri}</code> as the redirect URI.
            </>
          )}
        </p>
        <form class="stack-form" onSubmit={save}>
          <label for="sso-issuer">Issuer URL</label>
          <input
            id="sso-issuer"
            type="url"
            required
            placeholder="https://login.agency.example"
            value={issuer}
            onInput={(e) => setIssuer(e.currentTarget.value)}
          />
          <label for="sso-client-id">Client id</label>
          <input
            id="sso-client-id"
            required
            value={clientId}
            onInput={(e) => setClientId(e.currentTarget.value)}
          />
          <label for="sso-secret">Client secret</label>
          <input
            id="sso-secret"
            type="password"
            autocomplete="off"
            required={!current}
            placeholder={current ? 'Stored: leave empty to keep it' : ''}
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
          <label for="sso-domains">Allowed email domains (comma-separated)</label>
          <input
            id="sso-domains"
            required
            placeholder="agency.example"
            value={domains}
            onInput={(e) => setDomains(e.currentTarget.value)}
          />
          <label for="sso-role">Default role for new people</label>
          <select id="sso-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            <option value="viewer">Viewer</option>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
          <label class="check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
            Enabled
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking the provider…' : 'Save'}
          </button>
          {saved && (
            <p role="status" data-testid="sso-saved">
              Saved. The provider answered its discovery document.
            </p>
          )}
        </form>
        {error !== null && <ErrorBox error={error} />}
      </Section>
      {current && (
        <Section title="Your account">
          <p>
            Already have a password here? Link your account to the provider once, while signed in; then you
            can sign in either way. Last changed {when(current.updated_at)}.
          </p>
          <p>
            <a
              href={`/v1/auth/sso/start?workspace=${encodeURIComponent(session.workspace.id)}&return_to=${encodeURIComponent('/app/#/sso')}`}
            >
              Link my account
            </a>
          </p>
          <ConfirmButton
            label="Remove single sign-on"
            question="Remove single sign-on? People keep their membership, but can no longer sign in through the provider."
            confirmLabel="Yes, remove it"
            onConfirm={() => void remove()}
          />
        </Section>
      )}
    </>
  );
}
