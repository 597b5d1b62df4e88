import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { forgetKey, signIn, storedKey, type Session } from './api.ts';
import { ErrorBox } from './ui.tsx';
import { WorkspaceView } from './views/workspace.tsx';
import { HistoryView } from './views/history.tsx';
import { AuditsView } from './views/audits.tsx';
import { PlatformsView } from './views/platforms.tsx';
import { CampaignsView } from './views/campaigns.tsx';
import { StudioView } from './views/studio.tsx';
import { WebhooksView } from './views/webhooks.tsx';
import { AlertsView } from './views/alerts.tsx';
import { ReportsView } from './views/reports.tsx';
import { AgencyView } from './views/agency.tsx';
import { TacsiView } from './views/tacsi.tsx';
import { AccountView, PasskeySignInButton } from './views/account.tsx';
import { TeamView } from './views/team.tsx';
import { SsoSignIn, SsoView } from './views/sso.tsx';
import './style.css';

/** What a view gets: the session's client and the workspace it shows (an agency may open a client's). */
export interface ViewProps {
  session: Extract<Session, { kind: 'workspace' }>;
  /** The client workspace an agency opened, or undefined for the key's own workspace. */
  workspaceId: string | undefined;
  route: string[];
}

interface ViewDef {
  path: string;
  label: string;
  /** Shown only to agency-plan keys (the plan of alerts, reports, webhooks, campaigns). */
  agency?: boolean;
  view: (p: ViewProps) => preact.JSX.Element;
}

const VIEWS: ViewDef[] = [
  { path: 'workspace', label: 'Workspace', view: WorkspaceView },
  { path: 'history', label: 'History', view: HistoryView },
  { path: 'audits', label: 'Audits', view: AuditsView },
  { path: 'platforms', label: 'Platforms', view: PlatformsView },
  { path: 'campaigns', label: 'Campaigns', agency: true, view: CampaignsView },
  { path: 'studio', label: 'Content studio', agency: true, view: StudioView },
  { path: 'webhooks', label: 'Webhooks', agency: true, view: WebhooksView },
  { path: 'alerts', label: 'Alerts', agency: true, view: AlertsView },
  { path: 'reports', label: 'Reports', agency: true, view: ReportsView },
  { path: 'agency', label: 'Agency', agency: true, view: AgencyView },
  { path: 'account', label: 'Account', view: AccountView },
  { path: 'team', label: 'Team', view: TeamView },
  { path: 'sso', label: 'Single sign-on', view: SsoView },
];

function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

function SignIn({ onSession }: { onSession: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <main id="main" class="signin">
      <h1>Brand Health</h1>
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            onSession(await signIn(key));
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h2>Sign in</h2>
        <p>
          Paste an API key. In the sandbox, <code>sandbox.json</code> (written by <code>npm run demo</code>)
          lists a key for every role. The key stays in this browser tab only (session storage) and is sent to
          the API in a header, never in a link.
        </p>
        <label for="apikey">API key</label>
        <input
          id="apikey"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          placeholder="bh_test_…"
        />
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error !== null && <ErrorBox error={error} />}
      </form>
      <PasskeySignInButton onSignedIn={() => (location.hash = '#/account')} />
      <SsoSignIn />
    </main>
  );
}

function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedKey() !== null);
  const [error, setError] = useState<unknown>(null);
  const [client, setClient] = useState<{ id: string; name: string } | undefined>(undefined);

  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    signIn(key)
      .then(setSession, (e: unknown) => {
        forgetKey();
        setError(e);
      })
      .finally(() => setRestoring(false));
  }, []);

  // An agency opens a client's view with #/client/<id>/<view>; the name comes from the agency table.
  useEffect(() => {
    const open = (e: Event) => setClient((e as CustomEvent<{ id: string; name: string } | undefined>).detail);
    addEventListener('bh:open-client', open);
    return () => removeEventListener('bh:open-client', open);
  }, []);

  const signOut = () => {
    forgetKey();
    sessionStorage.clear();
    setSession(null);
    setClient(undefined);
    location.hash = '';
  };

  if (restoring) return <p role="status">Signing in…</p>;
  // The account page works with the session cookie alone (passkeys), with or without an API key.
  if (!session && route[0] === 'account')
    return (
      <main id="main" tabIndex={-1}>
        <AccountView />
      </main>
    );
  if (!session)
    return (
      <>
        {error !== null && <ErrorBox error={error} />}
        <SignIn
          onSession={(s) => {
            setSession(s);
            location.hash = s.kind === 'tacsi' ? '#/tacsi' : '#/workspace';
          }}
        />
      </>
    );

  const views =
    session.kind === 'workspace' ? VIEWS.filter((v) => !v.agency || session.agency) : ([] as ViewDef[]);
  const tacsi = session.kind === 'tacsi';
  const current = route[0] ?? (tacsi ? 'tacsi' : 'workspace');
  const def = views.find((v) => v.path === current);
  const workspaceId = session.kind === 'workspace' && session.agency ? client?.id : undefined;

  let body: preact.JSX.Element;
  if (session.kind === 'limited') {
    body = (
      <>
        <h1>Nothing to show for this key</h1>
        <ErrorBox error={session.problem} />
      </>
    );
  } else if (tacsi) {
    body = current === 'tacsi' ? <TacsiView client={session.client} route={route} /> : <NotAvailable />;
  } else if (session.kind === 'workspace' && def) {
    body = <def.view session={session} workspaceId={workspaceId} route={route} />;
  } else {
    body = <NotAvailable />;
  }

  const navItems = tacsi ? [{ path: 'tacsi', label: 'TACSI index' }] : views;
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Brand Health</span>
        <span class="who" data-testid="who">
          {session.kind === 'workspace'
            ? `${session.workspace.name} · ${session.workspace.plan} plan`
            : session.kind === 'tacsi'
              ? 'TACSI subscriber'
              : 'Limited key'}
        </span>
        <button class="link" type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Views" class="nav">
        <ul>
          {navItems.map((v) => (
            <li key={v.path}>
              <a href={`#/${v.path}`} aria-current={v.path === current ? 'page' : undefined}>
                {v.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {client && session.kind === 'workspace' && (
        <div class="banner" role="status">
          Viewing client <strong>{client.name}</strong>{' '}
          <button class="link" type="button" onClick={() => setClient(undefined)}>
            Back to {session.workspace.name}
          </button>
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

function NotAvailable() {
  return (
    <>
      <h1>Not available</h1>
      <p>This view is not part of what your key may see. Choose one of the views above.</p>
    </>
  );
}

render(<App />, document.getElementById('root')!);
