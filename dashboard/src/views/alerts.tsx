import { useState } from 'preact/hooks';
import type { Alert, CreateAlertBody } from '../../../sdk/src/client.ts';
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

type Condition = CreateAlertBody['condition'];
const CONDITIONS: Array<{ value: Condition; label: string }> = [
  { value: 'score_drop', label: 'Score drops by N points over D days' },
  { value: 'score_below', label: 'Score falls below a value' },
  { value: 'pillar_change', label: 'A pillar moves by N points over D days' },
  { value: 'grade_change', label: 'The grade falls' },
  { value: 'crisis', label: 'Crisis signal' },
  { value: 'connection_needs_brand', label: 'A connection needs the brand' },
];
const PILLARS = ['presence', 'reach', 'impact', 'sentiment', 'momentum'] as const;

function describe(a: Alert): string {
  const p = a.params;
  switch (a.condition) {
    case 'score_below':
      return `score below ${p.threshold}`;
    case 'score_drop':
      return `score drops ${p.points} points in ${p.days} days`;
    case 'pillar_change':
      return `${p.pillar} moves ${p.direction} ${p.points} points in ${p.days} days`;
    case 'grade_change':
      return p.direction === 'any' ? 'grade changes' : 'grade falls';
    case 'crisis':
      return 'crisis signal';
    case 'connection_needs_brand':
      return 'a connection needs the brand';
  }
}

function channels(a: Alert): string {
  return [
    ...(a.channels.email.length ? [`email ${a.channels.email.join(', ')}`] : []),
    ...(a.channels.webhook ? ['webhook events'] : []),
    ...(a.channels.slack_url ? ['Slack'] : []),
  ].join('; ');
}

export function AlertsView({ session }: ViewProps) {
  const { client } = session;
  const [list, reload] = useAsync((signal) => client.GET('/v1/alerts', { signal }).then(unwrap), []);
  const [name, setName] = useState('');
  const [condition, setCondition] = useState<Condition>('score_drop');
  const [threshold, setThreshold] = useState('40');
  const [points, setPoints] = useState('5');
  const [days, setDays] = useState('7');
  const [pillar, setPillar] = useState<(typeof PILLARS)[number]>('sentiment');
  const [email, setEmail] = useState('');
  const [webhook, setWebhook] = useState(false);
  const [slack, setSlack] = useState('');
  const { error, run, setError } = useAction();
  const [open, setOpen] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const body: CreateAlertBody = {
      name,
      condition,
      ...(condition === 'score_below' ? { threshold: Number(threshold) } : {}),
      ...(condition === 'score_drop' || condition === 'pillar_change'
        ? { points: Number(points), days: Number(days) }
        : {}),
      ...(condition === 'pillar_change' ? { pillar } : {}),
      ...(email.trim() ? { email: email.split(/[,\s]+/).filter(Boolean) } : {}),
      ...(webhook ? { webhook: true } : {}),
      ...(slack.trim() ? { slack_url: slack.trim() } : {}),
    };
    try {
      unwrap(await client.POST('/v1/alerts', { body }));
      setName('');
      reload();
    } catch (err) {
      setError(err);
    }
  };
  const setEnabled = (id: string, enabled: boolean) =>
    run(async () => {
      unwrap(
        await client.PATCH('/v1/alerts/{alert_id}', {
          params: { path: { alert_id: id } },
          body: { enabled },
        }),
      );
      reload();
    });
  const remove = (id: string) =>
    run(async () => {
      unwrap(await client.DELETE('/v1/alerts/{alert_id}', { params: { path: { alert_id: id } } }));
      if (open === id) setOpen(null);
      reload();
    });

  return (
    <>
      <h1>Alerts</h1>
      {!session.can('alert.manage') && <RoleNote role={session.role} what="changing alerts" />}
      <Section title="Add an alert" hidden={!session.can('alert.manage')}>
        <form class="stack-form" onSubmit={create}>
          <label for="alert-name">Name</label>
          <input
            id="alert-name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="alert-condition">Condition</label>
          <select
            id="alert-condition"
            value={condition}
            onChange={(e) => setCondition(e.currentTarget.value as Condition)}
          >
            {CONDITIONS.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
          {condition === 'score_below' && (
            <>
              <label for="alert-threshold">Below</label>
              <input
                id="alert-threshold"
                type="number"
                min={0}
                max={100}
                step="0.1"
                value={threshold}
                onInput={(e) => setThreshold(e.currentTarget.value)}
              />
            </>
          )}
          {condition === 'pillar_change' && (
            <>
              <label for="alert-pillar">Pillar</label>
              <select
                id="alert-pillar"
                value={pillar}
                onChange={(e) => setPillar(e.currentTarget.value as (typeof PILLARS)[number])}
              >
                {PILLARS.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </>
          )}
          {(condition === 'score_drop' || condition === 'pillar_change') && (
            <>
              <label for="alert-points">Points</label>
              <input
                id="alert-points"
                type="number"
                min={0.1}
                max={100}
                step="0.1"
                value={points}
                onInput={(e) => setPoints(e.currentTarget.value)}
              />
              <label for="alert-days">Over days</label>
              <input
                id="alert-days"
                type="number"
                min={1}
                max={90}
                value={days}
                onInput={(e) => setDays(e.currentTarget.value)}
              />
            </>
          )}
          <label for="alert-email">Email recipients (comma-separated)</label>
          <input id="alert-email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <label for="alert-slack">Slack incoming-webhook URL (https)</label>
          <input id="alert-slack" type="url" value={slack} onInput={(e) => setSlack(e.currentTarget.value)} />
          <label class="check">
            <input type="checkbox" checked={webhook} onChange={(e) => setWebhook(e.currentTarget.checked)} />
            Send alert.triggered / alert.resolved to subscribed webhooks
          </label>
          <button type="submit">Add alert</button>
        </form>
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <Section title="Alerts">
        <Loaded data={list}>
          {(l) =>
            l.alerts.length === 0 ? (
              <p>None yet.</p>
            ) : (
              <div class="scroll">
                <table data-testid="alerts">
                  <TableHead cols={['Name', 'Condition', 'Channels', 'Status', 'Last fired', 'Actions']} />
                  <tbody>
                    {l.alerts.map((a) => (
                      <tr key={a.id}>
                        <td>{a.name}</td>
                        <td>{describe(a)}</td>
                        <td class="wrap">{channels(a)}</td>
                        <td>{a.enabled ? a.status : `off (${a.status})`}</td>
                        <td>{when(a.last_triggered_at)}</td>
                        <td class="row">
                          <button type="button" class="secondary" onClick={() => setOpen(a.id)}>
                            History
                          </button>
                          {session.can('alert.manage') && (
                            <>
                              <button
                                type="button"
                                class="secondary"
                                onClick={() => setEnabled(a.id, !a.enabled)}
                              >
                                {a.enabled ? 'Turn off' : 'Turn on'}
                              </button>
                              <button type="button" class="secondary" onClick={() => remove(a.id)}>
                                Delete
                              </button>
                            </>
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
      {open && <History session={session} id={open} />}
    </>
  );
}

function History({ session, id }: { session: ViewProps['session']; id: string }) {
  const [offset, setOffset] = useState(0);
  const limit = 20;
  const [data] = useAsync(
    (signal) =>
      session.client
        .GET('/v1/alerts/{alert_id}/history', {
          params: { path: { alert_id: id }, query: { limit, offset } },
          signal,
        })
        .then(unwrap),
    [id, offset],
  );
  return (
    <Section title="What fired and why">
      <Loaded data={data}>
        {(d) =>
          d.episodes.length === 0 ? (
            <p data-testid="alert-history">
              Nothing yet: an episode appears when the condition becomes true.
            </p>
          ) : (
            <>
              <div class="scroll">
                <table data-testid="alert-history">
                  <TableHead cols={['Fired', 'What happened', 'Drivers', 'Resolved', 'Notified']} />
                  <tbody>
                    {d.episodes.map((x) => (
                      <tr key={x.id}>
                        <td>{when(x.triggered_at)}</td>
                        <td class="wrap">{x.summary}</td>
                        <td class="wrap">
                          {(x.drivers.pillars ?? [])
                            .map((m) => `${m.pillar} ${m.change >= 0 ? '+' : ''}${m.change.toFixed(1)}`)
                            .join(', ') || '—'}
                        </td>
                        <td class="wrap">
                          {x.resolved_at
                            ? `${when(x.resolved_at)}: ${x.resolution?.summary ?? ''}`
                            : 'firing'}
                        </td>
                        <td>
                          {x.notifications.map((n) => `${n.phase} ${n.channel}: ${n.status}`).join('; ') ||
                            '—'}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <OffsetPager
                offset={offset}
                limit={limit}
                shown={d.episodes.length}
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
