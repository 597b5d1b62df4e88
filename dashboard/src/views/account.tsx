import { useState } from 'preact/hooks';
import { ProblemError } from '../api.ts';
import {
  currentPerson,
  listPasskeys,
  passkeysSupported,
  registerPasskey,
  removePasskey,
  signInWithPasskey,
  type PersonSession,
} from '../passkeys.ts';
import { ConfirmButton, ErrorBox, Loaded, Section, TableHead, useAsync, when, useAction } from '../ui.tsx';

/**
 * What went wrong with a passkey, in people's words: the browser's WebAuthn errors (cancelled, no
 * passkey for this site, timed out) and the service's one refusal; anything else as the API said.
 */
function PasskeyError({ error }: { error: unknown }) {
  if (error instanceof ProblemError && error.status === 401) {
    return (
      <div class="error" role="alert">
        <p>The passkey was not accepted. Try again, or sign in another way.</p>
      </div>
    );
  }
  if (error instanceof Error && /NotAllowedError|AbortError|InvalidStateError/.test(error.name)) {
    const text =
      error.name === 'InvalidStateError'
        ? 'This device already holds a passkey for your account.'
        : 'No passkey was used: the request was cancelled or timed out.';
    return (
      <div class="error" role="alert">
        <p>{text}</p>
      </div>
    );
  }
  return <ErrorBox error={error} />;
}

/**
 * The "Sign in with a passkey" button of the sign-in page: no email typed, the browser offers the
 * passkeys it holds for this site. `onSignedIn` gets the session (the cookie is already set).
 */
export function PasskeySignInButton({ onSignedIn }: { onSignedIn: (session: PersonSession) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!passkeysSupported()) return null;
  return (
    <div class="card">
      <button
        type="button"
        class="secondary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            onSignedIn(await signInWithPasskey());
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </button>
      {error !== null && <PasskeyError error={error} />}
    </div>
  );
}

/** The signed-in person's passkeys: the list, adding one under a name, removing one. */
export function PasskeysSection() {
  const [list, reload] = useAsync(() => listPasskeys(), []);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const { error, run, setError } = useAction();
  const [added, setAdded] = useState<string | null>(null);

  const add = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setAdded(null);
    try {
      const passkey = await registerPasskey(name.trim());
      setAdded(passkey.name);
      setName('');
      reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = (id: string) =>
    run(async () => {
      setAdded(null);
      await removePasskey(id);
      reload();
    });

  return (
    <Section title="Passkeys">
      <p>
        A passkey signs you in with this device's screen lock or a security key instead of your password. The
        device keeps the private key; the service keeps only the public one.
      </p>
      <Loaded data={list}>
        {(passkeys) =>
          passkeys.length === 0 ? (
            <p>No passkeys yet.</p>
          ) : (
            <div class="scroll">
              <table data-testid="passkeys">
                <TableHead cols={['Name', 'Added', 'Last used', 'Actions']} />
                <tbody>
                  {passkeys.map((p) => (
                    <tr key={p.id}>
                      <td>{p.name}</td>
                      <td>{when(p.created_at)}</td>
                      <td>{p.last_used_at ? when(p.last_used_at) : 'never'}</td>
                      <td>
                        <ConfirmButton
                          label={`Remove ${p.name}`}
                          question={`Remove the passkey "${p.name}"? It will no longer sign you in.`}
                          confirmLabel="Remove"
                          onConfirm={() => void remove(p.id)}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {passkeysSupported() ? (
        <form class="stack-form" onSubmit={add}>
          <label for="passkey-name">Name of the new passkey</label>
          <input
            id="passkey-name"
            required
            maxLength={100}
            placeholder="Work laptop"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy || !name.trim()}>
            {busy ? 'Waiting for your device…' : 'Add a passkey'}
          </button>
        </form>
      ) : (
        <p class="note">This browser does not support passkeys.</p>
      )}
      {added && (
        <p class="note" role="status">
          Passkey “{added}” added.
        </p>
      )}
      {error !== null && <PasskeyError error={error} />}
    </Section>
  );
}

/**
 * The signed-in person's account (the session cookie, not an API key): who is signed in, signing
 * out here or everywhere, and their passkeys.
 */
export function AccountView({ onSignOut }: { onSignOut: (everywhere?: boolean) => Promise<void> }) {
  const [person] = useAsync(() => currentPerson(), []);
  const [error, setError] = useState<unknown>(null);
  const out = (everywhere: boolean) => async () => {
    setError(null);
    try {
      await onSignOut(everywhere);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>Account</h1>
      <Loaded data={person}>
        {(p) =>
          p === null ? (
            <Section title="Not signed in">
              <p>Your session has ended.</p>
              <a href="#/">Go to sign-in</a>
            </Section>
          ) : (
            <>
              <Section title="Signed in">
                <p data-testid="account-person">
                  {p.person.name} ({p.person.email})
                </p>
                <div class="actions">
                  <button type="button" class="secondary" onClick={out(false)}>
                    Sign out of this account
                  </button>
                  <button type="button" class="secondary" onClick={out(true)}>
                    Sign out everywhere
                  </button>
                </div>
                <p class="muted">
                  Signing out everywhere ends every session of your account, on every device.
                </p>
                {error !== null && <ErrorBox error={error} />}
              </Section>
              <PasskeysSection />
            </>
          )
        }
      </Loaded>
    </>
  );
}
