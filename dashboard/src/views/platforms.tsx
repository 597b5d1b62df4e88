import { useState } from 'preact/hooks';
import { PLATFORMS, unwrap, type Platform } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Loaded, cap, useAsync, when } from '../ui.tsx';

/** The connection's health (GET /v1/platforms `health.status`), as a pill. */
const HEALTH: Record<string, { label: string; cls: string }> = {
  healthy: { label: 'Healthy', cls: 'ok' },
  degraded: { label: 'Degraded', cls: 'warn' },
  needs_reauth: { label: 'Needs reconnecting', cls: 'bad' },
  unsupported: { label: 'Unsupported', cls: 'bad' },
};

/** What each health reason code means for the brand. */
const REASONS: Record<string, string> = {
  partial_failure: 'part of the data could not be read',
  scope_not_granted: 'a permission was not granted',
  throttled: 'the platform is pacing requests; retrying',
  quota_exhausted: 'the platform quota is spent until it resets',
  platform_unavailable: 'the platform is not answering; retrying',
  token_refresh_failed: 'the platform could not renew access; retrying',
  token_refused: 'the platform refused access',
  refresh_refused: 'the platform withdrew access',
  permission_missing: 'a permission is missing',
  account_gone: 'the account no longer exists',
  platform_refused: 'the platform refused the request',
  invalid_response: 'the platform answered something unreadable',
  sync_failed: 'the last sync failed',
};

const PILLAR_NAMES = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;

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
                          <span class={`pill ${health?.cls ?? ''}`} data-testid={`health-${name}`}>
                            {health?.label ?? cap(c.status.replace(/_/g, ' '))}
                          </span>{' '}
                          {c.handle}
                        </p>
                        {c.health?.reason && (
                          <p class="note" data-testid={`health-reason-${name}`}>
                            {REASONS[c.health.reason] ?? c.health.reason.replace(/_/g, ' ')}
                            {c.health.missing_scope && <> (permission: {c.health.missing_scope})</>}
                          </p>
                        )}
                        <p class="muted">
                          {(c.followers ?? c.subscribers ?? 0).toLocaleString()}{' '}
                          {c.subscribers !== undefined ? 'subscribers' : 'followers'}
                          <br />
                          Last success{' '}
                          {c.health?.last_success_at ? when(c.health.last_success_at) : 'not yet'}
                          {c.health && (
                            <>
                              <br />
                              Latest data {c.health.latest_data_day ?? 'none yet'}
                            </>
                          )}
                          {c.health?.reauth_by && (
                            <>
                              <br />
                              Reconnect before {when(c.health.reauth_by)}
                            </>
                          )}
                          {c.last_error && (
                            <>
                              <br />
                              Last error: {c.last_error.class.replace(/_/g, ' ')} at {when(c.last_error.at)}
                            </>
                          )}
                        </p>
                        {c.health && (
                          <ul class="muted" data-testid={`coverage-${name}`}>
                            {PILLAR_NAMES.map((pillar) => {
                              const cov = c.health!.coverage[pillar];
                              return (
                                <li key={pillar}>
                                  {cap(pillar)}: {cov.level}
                                  {cov.missing.length > 0 &&
                                    ` (missing ${cov.missing.map((m) => m.data.replace(/_/g, ' ')).join(', ')})`}
                                </li>
                              );
                            })}
                          </ul>
                        )}
                        <div class="row">
                          {(c.status === 'reauth_required' ||
                            c.status === 'error' ||
                            c.health?.missing_scope) && (
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
