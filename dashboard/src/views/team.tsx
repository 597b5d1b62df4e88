import { useState } from 'preact/hooks';
import { ProblemError, unwrap } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import {
  ConfirmButton,
  ErrorBox,
  Loaded,
  PageButton,
  Section,
  TableHead,
  cap,
  useAsync,
  when,
  useAction,
} from '../ui.tsx';

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const SCOPES = ['read', 'write'] as const;
type Scope = (typeof SCOPES)[number];

/** The action names an owner is most likely to look for (docs/security.md "Audit log" lists them all). */
const ACTIONS = [
  'session.signed_in',
  'session.sign_in_failed',
  'session.signed_out',
  'session.signed_out_everywhere',
  'person.password_reset',
  'member.added',
  'member.role_changed',
  'member.removed',
  'invitation.created',
  'invitation.accepted',
  'invitation.revoked',
  'key.created',
  'key.revoked',
  'webhook.created',
  'webhook.deleted',
  'platform.connected',
  'platform.disconnected',
  'passkey.registered',
  'passkey.removed',
  'sso.settings_changed',
];

/**
 * The team: members and their roles, invitations, API keys made by people, and the audit log. Anyone
 * may read the members; managing people and keys and reading the log are for signed-in owners and
 * admins, so the view asks the API once (the invitations list) and shows the rest only when allowed.
 */
export function TeamView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const [access] = useAsync(async (signal) => {
    const res = await client.GET('/v1/invitations', { signal });
    if (res.response.ok) return true;
    const problem = ProblemError.from(res.error, res.response);
    if (problem.status === 403 || problem.status === 401) return false;
    throw problem;
  }, []);
  return (
    <>
      <h1>Team</h1>
      <Loaded data={access}>
        {(manage) => (
          <>
            {!manage && (
              <p class="note" data-testid="team-read-only">
                You can see who is in this workspace. Changing the team, its API keys and reading the audit
                log need an owner or admin signed in.
              </p>
            )}
            <Members session={session} manage={manage} />
            {manage && <Invitations session={session} />}
            {manage && <Keys session={session} />}
            {manage && <AuditLog session={session} workspaceId={workspaceId} />}
          </>
        )}
      </Loaded>
    </>
  );
}

type Props = { session: ViewProps['session'] };

function Members({ session, manage }: Props & { manage: boolean }) {
  const { client } = session;
  const [list, reload] = useAsync((signal) => client.GET('/v1/members', { signal }).then(unwrap), []);
  const { error, run } = useAction();
  const act = (work: () => Promise<unknown>) =>
    run(async () => {
      await work();
      reload();
    });
  return (
    <Section title="Members">
      {error !== null && <ErrorBox error={error} />}
      <Loaded data={list}>
        {(l) => (
          <div class="scroll">
            <table data-testid="members">
              <TableHead cols={['Name', 'Email', 'Role', 'Since', ...(manage ? ['Actions'] : [])]} />
              <tbody>
                {l.members.map((m) => (
                  <tr key={m.person_id}>
                    <td>{m.name}</td>
                    <td>{m.email}</td>
                    <td>
                      {manage ? (
                        <select
                          aria-label={`Role of ${m.name}`}
                          value={m.role}
                          onChange={(e) => {
                            const role = e.currentTarget.value as Role;
                            void act(async () =>
                              unwrap(
                                await client.PATCH('/v1/members/{person_id}', {
                                  params: { path: { person_id: m.person_id } },
                                  body: { role },
                                }),
                              ),
                            );
                          }}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {cap(r)}
                            </option>
                          ))}
                        </select>
                      ) : (
                        cap(m.role)
                      )}
                    </td>
                    <td>{when(m.created_at)}</td>
                    {manage && (
                      <td>
                        <ConfirmButton
                          label="Remove"
                          question={`Remove ${m.name} from this workspace? Their next request here is refused.`}
                          confirmLabel="Yes, remove"
                          onConfirm={() =>
                            void act(async () =>
                              unwrap(
                                await client.DELETE('/v1/members/{person_id}', {
                                  params: { path: { person_id: m.person_id } },
                                }),
                              ),
                            )
                          }
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </Section>
  );
}

function Invitations({ session }: Props) {
  const { client } = session;
  const [list, reload] = useAsync((signal) => client.GET('/v1/invitations', { signal }).then(unwrap), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const { error, run } = useAction();
  const [sent, setSent] = useState<string | null>(null);
  const invite = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      setSent(null);
      const made = unwrap(await client.POST('/v1/invitations', { body: { email, role } }));
      setSent(made.email);
      setEmail('');
      reload();
    });
  };
  const revoke = (id: string) =>
    run(async () => {
      unwrap(await client.DELETE('/v1/invitations/{id}', { params: { path: { id } } }));
      reload();
    });
  return (
    <Section title="Invitations">
      <form class="stack-form" onSubmit={invite}>
        <label for="invite-email">Email address</label>
        <input
          id="invite-email"
          type="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {cap(r)}
            </option>
          ))}
        </select>
        <button type="submit">Send invitation</button>
      </form>
      {sent && (
        <p class="note" role="status">
          Invitation emailed to {sent}; the link works once, for 7 days.
        </p>
      )}
      {error !== null && <ErrorBox error={error} />}
      <Loaded data={list}>
        {(l) =>
          l.invitations.length === 0 ? (
            <p>No invitations yet.</p>
          ) : (
            <div class="scroll">
              <table data-testid="invitations">
                <TableHead cols={['Email', 'Role', 'Status', 'Expires', 'Actions']} />
                <tbody>
                  {l.invitations.map((i) => (
                    <tr key={i.id}>
                      <td>{i.email}</td>
                      <td>{cap(i.role)}</td>
                      <td>{i.status}</td>
                      <td>{when(i.expires_at)}</td>
                      <td>
                        {i.status === 'pending' && (
                          <button type="button" class="secondary" onClick={() => void revoke(i.id)}>
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </Section>
  );
}

function Keys({ session }: Props) {
  const { client } = session;
  const [list, reload] = useAsync((signal) => client.GET('/v1/keys', { signal }).then(unwrap), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const { error, run } = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      setSecret(null);
      setCopied(false);
      const body = {
        name,
        scopes,
        ...(expires ? { expires_at: new Date(`${expires}T00:00:00Z`).toISOString() } : {}),
      };
      const made = unwrap(await client.POST('/v1/keys', { body }));
      setSecret(made.key);
      setName('');
      reload();
    });
  };
  const revoke = (id: string) =>
    run(async () => {
      unwrap(await client.DELETE('/v1/keys/{id}', { params: { path: { id } } }));
      reload();
    });
  return (
    <Section title="API keys">
      <form class="stack-form" onSubmit={create}>
        <label for="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label class="check" key={s}>
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) =>
                  setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                }
              />
              {s}
            </label>
          ))}
        </fieldset>
        <label for="key-expires">Expires on (optional)</label>
        <input
          id="key-expires"
          type="date"
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
        />
        <button type="submit" disabled={scopes.length === 0}>
          Create key
        </button>
      </form>
      {secret && (
        <div class="note" role="status">
          <p>Copy the key now: it is shown only this once.</p>
          <p>
            <code data-testid="key-secret">{secret}</code>{' '}
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void navigator.clipboard.writeText(secret).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </p>
        </div>
      )}
      {error !== null && <ErrorBox error={error} />}
      <Loaded data={list}>
        {(l) =>
          l.keys.length === 0 ? (
            <p>No keys yet.</p>
          ) : (
            <div class="scroll">
              <table data-testid="keys">
                <TableHead
                  cols={['Name', 'Prefix', 'Scopes', 'Created by', 'Last used', 'Expires', 'Actions']}
                />
                <tbody>
                  {l.keys.map((k) => (
                    <tr key={k.id}>
                      <td>{k.name}</td>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>{k.scopes.join(', ')}</td>
                      <td>{k.created_by_person_id ?? 'operator'}</td>
                      <td>{k.last_used_at ? when(k.last_used_at) : 'never'}</td>
                      <td>{k.revoked_at ? `revoked ${when(k.revoked_at)}` : when(k.expires_at)}</td>
                      <td>
                        {!k.revoked_at && (
                          <ConfirmButton
                            label="Revoke"
                            question={`Revoke "${k.name}"? Programs using it stop working.`}
                            confirmLabel="Yes, revoke"
                            onConfirm={() => void revoke(k.id)}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </Section>
  );
}

interface LogFilter {
  action: string;
  actor: string;
  since: string;
  until: string;
}

/** The log of the workspace shown: an agency that opened a client reads the client's. */
function AuditLog({ session, workspaceId }: Props & { workspaceId: string | undefined }) {
  const { client } = session;
  const [draft, setDraft] = useState<LogFilter>({ action: '', actor: '', since: '', until: '' });
  const [filter, setFilter] = useState<LogFilter>(draft);
  // The cursors of the pages before the one shown (for "Newer"), and the one shown.
  const [cursors, setCursors] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const { error, run } = useAction();
  const query = {
    ...(workspaceId ? { workspace_id: workspaceId } : {}),
    ...(filter.action ? { action: filter.action } : {}),
    ...(filter.actor.trim() ? { actor: filter.actor.trim() } : {}),
    ...(filter.since ? { since: filter.since } : {}),
    ...(filter.until ? { until: filter.until } : {}),
  };
  const [page] = useAsync(
    (signal) =>
      client
        .GET('/v1/audit-log', {
          params: { query: { ...query, limit: 50, ...(cursor ? { cursor } : {}) } },
          signal,
        })
        .then(unwrap),
    [JSON.stringify(filter), cursor, workspaceId],
  );
  const download = () =>
    run(async () => {
      const res = await client.GET('/v1/audit-log', {
        params: { query },
        headers: { Accept: 'text/csv' },
        parseAs: 'blob',
      });
      if (!res.response.ok) throw ProblemError.from(res.error, res.response);
      const url = URL.createObjectURL(res.data as Blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = 'audit-log.csv';
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
  return (
    <Section title="Audit log">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          setCursor(undefined);
          setFilter(draft);
        }}
      >
        <label>
          Action{' '}
          <select
            value={draft.action}
            onChange={(e) => setDraft({ ...draft, action: e.currentTarget.value })}
          >
            <option value="">All</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor id{' '}
          <input
            value={draft.actor}
            placeholder="per_… or key_…"
            onInput={(e) => setDraft({ ...draft, actor: e.currentTarget.value })}
          />
        </label>
        <label>
          From{' '}
          <input
            type="date"
            value={draft.since}
            onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })}
          />
        </label>
        <label>
          To{' '}
          <input
            type="date"
            value={draft.until}
            onInput={(e) => setDraft({ ...draft, until: e.currentTarget.value })}
          />
        </label>
        <button type="submit">Filter</button>
        <button type="button" class="secondary" onClick={() => void download()}>
          Download CSV
        </button>
      </form>
      {error !== null && <ErrorBox error={error} />}
      <Loaded data={page}>
        {(p) =>
          p.entries.length === 0 ? (
            <p data-testid="audit-log">Nothing recorded for these filters.</p>
          ) : (
            <>
              <div class="scroll">
                <table data-testid="audit-log">
                  <TableHead cols={['When', 'Action', 'Who', 'Target', 'Detail', 'Address']} />
                  <tbody>
                    {p.entries.map((e) => (
                      <tr key={e.id}>
                        <td>{when(e.at)}</td>
                        <td>{e.action}</td>
                        <td>{e.actor.label ?? e.actor.id ?? '—'}</td>
                        <td>{e.target ?? '—'}</td>
                        <td class="wrap">{e.detail ?? ''}</td>
                        <td>{e.address ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <p class="row">
                <PageButton
                  disabled={cursor === undefined}
                  onClick={() => {
                    const previous = cursors.at(-1);
                    setCursors(cursors.slice(0, -1));
                    setCursor(previous === '' ? undefined : previous);
                  }}
                >
                  Newer
                </PageButton>
                <PageButton
                  disabled={p.next_cursor === null}
                  onClick={() => {
                    setCursors([...cursors, cursor ?? '']);
                    setCursor(p.next_cursor ?? undefined);
                  }}
                >
                  Older
                </PageButton>
              </p>
            </>
          )
        }
      </Loaded>
    </Section>
  );
}
