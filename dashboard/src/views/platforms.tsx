import { useState } from 'preact/hooks';
import { PLATFORMS, unwrap, type Platform } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import type { components } from '../../../sdk/src/schema.d.ts';
import { ConfirmButton, ErrorBox, Loaded, cap, useAsync, when, RoleNote, useAction } from '../ui.tsx';

type Attempt = components['schemas']['PlatformConnectAttempt'];
interface Choice {
  platform: Platform;
  id: string;
  accounts: NonNullable<Attempt['accounts']>;
  /** The account waiting for the confirmation to share it with another workspace. */
  confirm?: string;
}

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
  const manage = session.can('platform.manage');
  const { client } = session;
  const query = workspaceId ? { workspace_id: workspaceId } : {};
  const [data, reload] = useAsync(
    (signal) => client.GET('/v1/platforms', { params: { query }, signal }).then(unwrap),
    [workspaceId],
  );
  const [busy, setBusy] = useState<Platform | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const { error, run, setError } = useAction();
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

  const sync = (platform: Platform) =>
    run(async () => {
      setMessage(null);
      unwrap(await client.POST('/v1/platforms/{platform}/sync', { params: { path: { platform }, query } }));
      setMessage(`A sync of ${cap(platform)} was started.`);
      reload();
    });

  /** Disconnecting stops syncs and frees the plan's place; the history stays (asked first: ConfirmButton). */
  const disconnect = async (platform: Platform) => {
    setError(null);
    setMessage(null);
    setBusy(platform);
    try {
      unwrap(await client.DELETE('/v1/platforms/{platform}', { params: { path: { platform }, query } }));
      setMessage(`${cap(platform)} is disconnected. Connect it again whenever you like.`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
      reload();
    }
  };

  return (
    <>
      <h1>Platforms</h1>
      {!manage && <RoleNote role={session.role} what="connecting, syncing or disconnecting a platform" />}
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
                const health = c?.health ? HEALTH[c.health.status] : undefined;
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
                        {c.status === 'connected' && c.health?.missing_scope && (
                          <p class="note">
                            To grant the missing permission, disconnect {cap(name)} and connect it again: the
                            platform asks for every permission on a new sign-in.
                          </p>
                        )}
                        {c.next_sync_at === null &&
                          c.status !== 'reauth_required' &&
                          c.status !== 'error' && (
                            <p class="note" data-testid={`imported-${name}`}>
                              This account's data is imported, not read from {cap(name)} (the sandbox's seeded
                              history, or a file). It has no sign-in to sync with: to sync it from the
                              platform, disconnect it and connect it again.
                            </p>
                          )}
                        {manage && (
                          <div class="row">
                            {(c.status === 'reauth_required' || c.status === 'error') && (
                              <button type="button" disabled={busy !== null} onClick={() => connect(name)}>
                                Reconnect {cap(name)}
                              </button>
                            )}
                            {c.next_sync_at !== null && c.status !== 'reauth_required' && (
                              <button
                                type="button"
                                class="secondary"
                                disabled={busy !== null}
                                onClick={() => sync(name)}
                              >
                                Sync {cap(name)} now
                              </button>
                            )}
                            <ConfirmButton
                              label={`Disconnect ${cap(name)}`}
                              question={`Disconnect ${cap(name)}? Its syncs stop and it no longer counts towards your plan's platforms. The data already collected stays.`}
                              confirmLabel={`Yes, disconnect ${cap(name)}`}
                              keepLabel="Keep it connected"
                              disabled={busy !== null}
                              onConfirm={() => disconnect(name)}
                            />
                          </div>
                        )}
                      </>
                    ) : (
                      <>
                        <p class="muted">Not connected</p>
                        {manage && (
                          <button type="button" disabled={busy !== null} onClick={() => connect(name)}>
                            {busy === name ? 'Waiting for the platform…' : `Connect ${cap(name)}`}
                          </button>
                        )}
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
