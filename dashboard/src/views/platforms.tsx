import { useState } from 'preact/hooks';
import { PLATFORMS, unwrap, type Platform } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import type { components } from '../../../sdk/src/schema.d.ts';
import { ErrorBox, Loaded, cap, useAsync, when } from '../ui.tsx';

type Attempt = components['schemas']['PlatformConnectAttempt'];
interface Choice {
  platform: Platform;
  id: string;
  accounts: NonNullable<Attempt['accounts']>;
  /** The account waiting for the confirmation to share it with another workspace. */
  confirm?: string;
}

const HEALTH: Record<string, { label: string; cls: string }> = {
  connected: { label: 'Healthy', cls: 'ok' },
  syncing: { label: 'Syncing', cls: 'ok' },
  reauth_required: { label: 'Needs reconnecting', cls: 'warn' },
  error: { label: 'Failing', cls: 'bad' },
};

export function PlatformsView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const query = workspaceId ? { workspace_id: workspaceId } : {};
  const [data, reload] = useAsync(
    (signal) => client.GET('/v1/platforms', { params: { query }, signal }).then(unwrap),
    [workspaceId],
  );
  const [busy, setBusy] = useState<Platform | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** A login that gave several accounts (or one connected elsewhere): the brand picks one. */
  const [choice, setChoice] = useState<Choice | null>(null);

  const connected = (platform: Platform, a: Attempt) => {
    const missing = a.missing_scopes.length
      ? ` Not granted (optional): ${a.missing_scopes.join(', ')}; comments are not read until it is reconnected with them.`
      : '';
    setMessage(`${cap(platform)} is connected as ${a.handle}.${missing}`);
  };

  /**
   * OAuth in a popup: the service answers the platform's authorization URL and sets a cookie binding
   * the attempt to this browser (PKCE, single-use state bound to this key); the platform (the
   * simulator in the sandbox) redirects the popup to the service's callback, which completes only
   * for this browser; this view follows the attempt until it is connected, or lists the accounts
   * to pick from.
   */
  const connect = async (platform: Platform) => {
    setError(null);
    setMessage(null);
    setChoice(null);
    setBusy(platform);
    // Opened within the click (popup blockers), detached from this page before it leaves the origin.
    const popup = window.open('', 'bh-oauth', 'popup,width=520,height=640');
    if (popup) popup.opener = null;
    try {
      const started = unwrap(
        await client.POST('/v1/platforms/{platform}/connect', { params: { path: { platform }, query } }),
      );
      if (popup) popup.location.href = started.authorization_url;
      else window.open(started.authorization_url, '_blank', 'noopener');
      const deadline = Date.now() + 5 * 60_000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1000));
        const a = unwrap(
          await client.GET('/v1/platforms/{platform}/connect/{id}', {
            params: { path: { platform, id: started.id } },
          }),
        );
        if (a.status === 'connected') {
          connected(platform, a);
          break;
        }
        if (a.status === 'pending_selection') {
          setChoice({ platform, id: a.id, accounts: a.accounts ?? [] });
          setMessage(`Choose which ${cap(platform)} account to connect.`);
          break;
        }
        if (a.status !== 'pending') {
          setMessage(
            `${cap(platform)} was not connected: ${a.status === 'denied' ? 'access was not granted' : (a.error ?? a.status)}.`,
          );
          break;
        }
        if (popup?.closed) {
          setMessage(`${cap(platform)} was not connected: the sign-in window was closed.`);
          break;
        }
      }
    } catch (err) {
      setError(err);
    } finally {
      popup?.close();
      setBusy(null);
      reload();
    }
  };

  const pick = async (c: Choice, accountId: string, share: boolean) => {
    setError(null);
    setBusy(c.platform);
    try {
      const res = await client.POST('/v1/platforms/{platform}/connect/{id}/select', {
        params: { path: { platform: c.platform, id: c.id } },
        body: { account_id: accountId, share },
      });
      if (
        !res.response.ok &&
        res.response.status === 409 &&
        res.error?.title === 'Account Connected Elsewhere'
      ) {
        setChoice({ ...c, confirm: accountId });
        setMessage('This account is connected to another workspace already. Connect it here as well?');
        return;
      }
      connected(c.platform, unwrap(res));
      setChoice(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
      reload();
    }
  };

  const sync = async (platform: Platform) => {
    setError(null);
    setMessage(null);
    try {
      unwrap(await client.POST('/v1/platforms/{platform}/sync', { params: { path: { platform }, query } }));
      setMessage(`A sync of ${cap(platform)} was started.`);
      reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>Platforms</h1>
      {message && (
        <p role="status" class="note" data-testid="platform-message">
          {message}
        </p>
      )}
      {error !== null && <ErrorBox error={error} />}
      {choice && (
        <section aria-label={`Choose the ${cap(choice.platform)} account`} data-testid="account-choice">
          <h2>Choose the {cap(choice.platform)} account</h2>
          <ul class="cards">
            {choice.accounts.map((a) => (
              <li class="card" key={a.account_id}>
                <p>
                  <strong>{a.name}</strong> {a.handle}
                </p>
                <p class="muted">
                  {a.followers.toLocaleString()} {choice.platform === 'youtube' ? 'subscribers' : 'followers'}
                  {a.connected_elsewhere && (
                    <>
                      <br />
                      Connected to another workspace too
                    </>
                  )}
                </p>
                <button
                  type="button"
                  disabled={busy !== null}
                  onClick={() => pick(choice, a.account_id, choice.confirm === a.account_id)}
                >
                  {choice.confirm === a.account_id
                    ? `Connect ${a.handle} here as well`
                    : `Connect ${a.handle}`}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Loaded data={data}>
        {(d) => (
          <>
            <p>
              {d.total_connected} connected
              {session.workspace.platform_limit !== null && !workspaceId
                ? ` of ${session.workspace.platform_limit} allowed`
                : ''}
              .
            </p>
            <ul class="cards">
              {PLATFORMS.map((name) => {
                const c = d.platforms.find((p) => p.name === name);
                const health = c ? HEALTH[c.status] : undefined;
                return (
                  <li class="card" key={name} data-testid={`platform-${name}`}>
                    <h2>{cap(name)}</h2>
                    {c ? (
                      <>
                        <p>
                          <span class={`pill ${health?.cls}`}>{health?.label ?? c.status}</span> {c.handle}
                        </p>
                        <p class="muted">
                          {(c.followers ?? c.subscribers ?? 0).toLocaleString()}{' '}
                          {c.subscribers !== undefined ? 'subscribers' : 'followers'}
                          <br />
                          Last sync {when(c.last_sync)}
                          {c.last_error && (
                            <>
                              <br />
                              Last error: {c.last_error.class.replace(/_/g, ' ')} at {when(c.last_error.at)}
                            </>
                          )}
                        </p>
                        <div class="row">
                          {(c.status === 'reauth_required' || c.status === 'error') && (
                            <button type="button" disabled={busy !== null} onClick={() => connect(name)}>
                              Reconnect {cap(name)}
                            </button>
                          )}
                          <button type="button" class="secondary" onClick={() => sync(name)}>
                            Sync {cap(name)} now
                          </button>
                        </div>
                      </>
                    ) : (
                      <>
                        <p class="muted">Not connected</p>
                        <button type="button" disabled={busy !== null} onClick={() => connect(name)}>
                          {busy === name ? 'Waiting for the platform…' : `Connect ${cap(name)}`}
                        </button>
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </Loaded>
    </>
  );
}
