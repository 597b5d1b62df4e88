import { useState } from 'preact/hooks';
import { unwrap } from '../api.ts';
import type { ViewProps } from '../main.tsx';
import {
  ErrorBox,
  Loaded,
  OffsetPager,
  Section,
  TableHead,
  useAsync,
  when,
  RoleNote,
  useAction,
} from '../ui.tsx';

const EVENTS = [
  'audit.completed',
  'score.changed',
  'campaign.phase_changed',
  'platform.connection_failed',
  'platform.reauth_required',
  'platform.connection_degraded',
  'platform.token_expiring',
  'alert.triggered',
  'alert.resolved',
] as const;
type EventType = (typeof EVENTS)[number];

export function WebhooksView({ session }: ViewProps) {
  const { client } = session;
  const [list, reload] = useAsync((signal) => client.GET('/v1/webhooks', { signal }).then(unwrap), []);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['audit.completed']);
  const [secret, setSecret] = useState<string | null>(null);
  const { error, run } = useAction();
  const [open, setOpen] = useState<string | null>(null);

  const register = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      setSecret(null);
      const hook = unwrap(await client.POST('/v1/webhooks', { body: { url, events } }));
      setSecret(hook.secret);
      setUrl('');
      reload();
    });
  };
  const remove = (id: string) =>
    run(async () => {
      unwrap(await client.DELETE('/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: id } } }));
      if (open === id) setOpen(null);
      reload();
    });

  return (
    <>
      <h1>Webhooks</h1>
      {!session.can('webhook.manage') && <RoleNote role={session.role} what="registering a webhook" />}
      <Section title="Register a webhook" hidden={!session.can('webhook.manage')}>
        <form class="stack-form" onSubmit={register}>
          <label for="hook-url">Endpoint URL (https)</label>
          <input
            id="hook-url"
            type="url"
            required
            placeholder="https://example.com/hooks/brand-health"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <fieldset>
            <legend>Events</legend>
            {EVENTS.map((ev) => (
              <label class="check" key={ev}>
                <input
                  type="checkbox"
                  checked={events.includes(ev)}
                  onChange={(e) =>
                    setEvents(e.currentTarget.checked ? [...events, ev] : events.filter((x) => x !== ev))
                  }
                />
                {ev}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={events.length === 0}>
            Register
          </button>
        </form>
        {secret && (
          <p class="note" role="status">
            Registered. Its signing secret, shown only now: <code data-testid="hook-secret">{secret}</code>
          </p>
        )}
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <Section title="Registered webhooks">
        <Loaded data={list}>
          {(l) =>
            l.webhooks.length === 0 ? (
              <p>None yet.</p>
            ) : (
              <div class="scroll">
                <table data-testid="webhooks">
                  <TableHead cols={['URL', 'Events', 'Status', 'Created', 'Actions']} />
                  <tbody>
                    {l.webhooks.map((w) => (
                      <tr key={w.id}>
                        <td class="wrap">{w.url}</td>
                        <td>{w.events.join(', ')}</td>
                        <td>
                          {w.status}
                          {w.disabled_reason ? ` (${w.disabled_reason})` : ''}
                        </td>
                        <td>{when(w.created_at)}</td>
                        <td class="row">
                          <button type="button" class="secondary" onClick={() => setOpen(w.id)}>
                            Deliveries
                          </button>
                          {session.can('webhook.manage') && (
                            <button type="button" class="secondary" onClick={() => remove(w.id)}>
                              Delete
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
      {open && <Deliveries session={session} id={open} />}
    </>
  );
}

function Deliveries({ session, id }: { session: ViewProps['session']; id: string }) {
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const [data] = useAsync(
    (signal) =>
      session.client
        .GET('/v1/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: id }, query: { limit, offset } },
          signal,
        })
        .then(unwrap),
    [id, offset],
  );
  return (
    <Section title="Delivery log">
      <Loaded data={data}>
        {(d) =>
          d.deliveries.length === 0 ? (
            <p data-testid="deliveries">No deliveries yet: they appear when a subscribed event happens.</p>
          ) : (
            <>
              <div class="scroll">
                <table data-testid="deliveries">
                  <TableHead cols={['Event', 'Status', 'Attempts', 'Last answer', 'Last attempt']} />
                  <tbody>
                    {d.deliveries.map((x) => (
                      <tr key={x.id}>
                        <td>{x.event_type}</td>
                        <td>{x.status}</td>
                        <td>{x.attempts}</td>
                        <td>{x.last_status_code ?? x.last_error ?? '—'}</td>
                        <td>{when(x.last_attempt_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <OffsetPager
                offset={offset}
                limit={limit}
                shown={d.deliveries.length}
                total={d.total}
                onOffset={setOffset}
              />
            </>
          )
        }
      </Loaded>
    </Section>
  );
}
