import { useState } from 'preact/hooks';
import { PLATFORMS, unwrap, type Platform } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Loaded, cap, useAsync, when } from '../ui.tsx';

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

  /**
   * OAuth in a popup: the service answers the platform's authorization URL (PKCE, single-use state
   * bound to this key), the platform (the simulator in the sandbox) redirects to the service's callback,
   * and this view polls the connections until the platform shows up connected.
   */
  const connect = async (platform: Platform) => {
    setError(null);
    setMessage(null);
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
        const now = unwrap(await client.GET('/v1/platforms', { params: { query } }));
        const c = now.platforms.find((p) => p.name === platform);
        if (c && (c.status === 'connected' || c.status === 'syncing')) {
          setMessage(`${cap(platform)} is connected as ${c.handle}.`);
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
