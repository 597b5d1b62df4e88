import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  createOwnWorkspace,
  forgetKey,
  openSession,
  signInWithSubscriberKey,
  signOut,
  storedKey,
  type Session,
} from './api.ts';
import type { Action } from '../../src/core/permissions.ts';
import { AcceptInvitationPage, ResetPasswordPage, SignInPage, VerifyEmailPage } from './signin.tsx';
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
import { AccountView } from './views/account.tsx';
import { TeamView } from './views/team.tsx';
import { SsoView } from './views/sso.tsx';
import './style.css';

/** What a view gets: the session's client and the workspace it shows (an agency may open a client's). */
export interface ViewProps {
  session: Extract<Session, { kind: 'workspace' }>;
  /** Ends this browser's session (or, everywhere, every session of the person). */
  onSignOut: (everywhere?: boolean) => Promise<void>;
  /** The client workspace an agency opened, or undefined for the key's own workspace. */
  workspaceId: string | undefined;
  route: string[];
}

interface ViewDef {
  path: string;
  label: string;
  /** Shown only in agency-plan workspaces (the plan of alerts, reports, webhooks, campaigns). */
  agency?: boolean;
  /** Shown only to roles allowed this action (views with nothing to read without it). */
  action?: Action;
  view: (p: ViewProps) => preact.JSX.Element;
}

const VIEWS: ViewDef[] = [
  { path: 'workspace', label: 'Workspace', view: WorkspaceView },
  { path: 'history', label: 'History', view: HistoryView },
  { path: 'audits', label: 'Audits', view: AuditsView },
  { path: 'platforms', label: 'Platforms', view: PlatformsView },
  { path: 'campaigns', label: 'Campaigns', agency: true, view: CampaignsView },
  { path: 'studio', label: 'Content studio', agency: true, action: 'studio.use', view: StudioView },
  { path: 'webhooks', label: 'Webhooks', agency: true, view: WebhooksView },
  { path: 'alerts', label: 'Alerts', agency: true, view: AlertsView },
  { path: 'reports', label: 'Reports', agency: true, view: ReportsView },
  { path: 'agency', label: 'Agency', agency: true, view: AgencyView },
  { path: 'account', label: 'Account', view: AccountView },
  { path: 'team', label: 'Team', view: TeamView },
  { path: 'sso', label: 'Single sign-on', action: 'sso.read', view: SsoView },
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

function App() {
  const route = useRoute();
  const page = route[0]?.split('?')[0];
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [client, setClient] = useState<{ id: string; name: string } | undefined>(undefined);

  // The browser's session cookie (or this tab's TACSI subscriber key) signs the dashboard in again.
  useEffect(() => {
    const key = storedKey();
    (key ? signInWithSubscriberKey(key) : openSession())
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

  const signOutHere = async (everywhere = false) => {
    const csrf = session && 'csrf' in session ? session.csrf : null;
    try {
      await signOut(csrf, everywhere);
    } finally {
      setSession(null);
      setClient(undefined);
      location.hash = '';
    }
  };
  const switchTo = async (workspaceId: string) => {
    setClient(undefined);
    setError(null);
    try {
      setSession(await openSession(workspaceId));
      location.hash = '#/workspace';
    } catch (err) {
      setError(err);
    }
  };
  const signedIn = (s: Session) => {
    setError(null);
    setSession(s);
    location.hash = s.kind === 'tacsi' ? '#/tacsi' : '#/workspace';
  };

  if (restoring) return <p role="status">Signing in…</p>;
  // Pages an emailed link opens, signed in or not.
  if (page === 'verify-email') return <VerifyEmailPage />;
  if (page === 'reset-password') return <ResetPasswordPage />;
  if (page === 'accept-invitation')
    return <AcceptInvitationPage session={session} onJoined={(id) => void switchTo(id)} />;
  if (!session)
    return (
      <>
        {error !== null && <ErrorBox error={error} />}
        <SignInPage onSession={signedIn} />
      </>
    );

  const views =
    session.kind === 'workspace'
      ? VIEWS.filter((v) => (!v.agency || session.agency) && (!v.action || session.can(v.action)))
      : session.kind === 'no-workspace'
        ? VIEWS.filter((v) => v.path === 'account')
        : ([] as ViewDef[]);
  const tacsi = session.kind === 'tacsi';
  const current = page ?? (tacsi ? 'tacsi' : session.kind === 'no-workspace' ? 'start' : 'workspace');
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
  } else if (session.kind === 'no-workspace') {
    body =
      current === 'account' ? (
        <AccountView onSignOut={signOutHere} />
      ) : (
        <NoWorkspace person={session.person} onCreated={(id) => void switchTo(id)} />
      );
  } else if (def) {
    body = <def.view session={session} workspaceId={workspaceId} route={route} onSignOut={signOutHere} />;
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
            ? `${session.person.name} · ${session.workspace.name} · ${session.workspace.plan} plan · ${session.role}`
            : session.kind === 'no-workspace'
              ? session.person.name
              : session.kind === 'tacsi'
                ? 'TACSI subscriber'
                : 'Limited key'}
        </span>
        {session.kind === 'workspace' && session.memberships.length > 1 && (
          <label class="switcher">
            <span class="sr-only">Workspace</span>
            <select value={session.workspace.id} onChange={(e) => void switchTo(e.currentTarget.value)}>
              {session.memberships.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name} ({m.role})
                </option>
              ))}
            </select>
          </label>
        )}
        <button class="link" type="button" onClick={() => void signOutHere()}>
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
        {error !== null && <ErrorBox error={error} />}
        {body}
      </main>
    </>
  );
}

/** A signed-in person in no workspace yet: how to get into one, or a workspace of their own. */
function NoWorkspace({
  person,
  onCreated,
}: {
  person: { name: string; email: string };
  onCreated: (workspaceId: string) => void;
}) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <h1>Welcome, {person.name}</h1>
      <p data-testid="no-workspace">
        You are not in a workspace yet. If your team uses Brand Health, ask one of its owners or admins to
        invite {person.email}: the invitation email has a link that brings you in.
      </p>
      <form
        class="card stack-form"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            onCreated((await createOwnWorkspace(name)).id);
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h2>Or start a workspace of your own</h2>
        <p>It starts on the Free plan with you as its owner.</p>
        <label for="new-workspace">Name of the brand or team</label>
        <input
          id="new-workspace"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !name.trim()}>
          Create the workspace
        </button>
        {error !== null && <ErrorBox error={error} />}
      </form>
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
