import { useState } from 'preact/hooks';
import { unwrap } from '../api.ts';
import type { Campaign } from '../../../sdk/src/client.ts';
import type { ViewProps } from '../main.tsx';
import { ErrorBox, Loaded, Section, cap, day, useAsync, ConfirmButton, RoleNote, useAction } from '../ui.tsx';

const ARC = ['foundation', 'build', 'peak', 'echo'];

/** The Narrative Arc as a row of phases: done, running (with its progress) and upcoming. */
function Timeline({ c }: { c: Campaign }) {
  const phases = ARC.includes(c.current_phase) ? ARC : [c.current_phase];
  const at = phases.indexOf(c.current_phase);
  return (
    <ol class="timeline" aria-label={`Phases of ${c.name}`}>
      {phases.map((p, i) => {
        const state =
          c.status === 'completed' || i < at
            ? 'done'
            : i === at && c.status !== 'draft'
              ? c.status === 'cancelled'
                ? 'stopped'
                : 'running'
              : 'upcoming';
        const pct =
          state === 'done' ? 100 : state === 'running' || state === 'stopped' ? c.phase_progress : 0;
        return (
          <li key={p} class={`phase ${state}`}>
            <span class="phase-name">{cap(p)}</span>
            <span class="bar" aria-hidden="true">
              <span style={{ width: `${pct}%` }} />
            </span>
            <span class="muted">
              {state === 'running' ? `${pct}% done` : state === 'stopped' ? `stopped at ${pct}%` : state}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

export function CampaignsView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const scope = workspaceId ? { workspace_id: workspaceId } : {};
  // Without a status the API lists draft, active and completed; cancelled ones only when asked for.
  const [status, setStatus] = useState<'' | Campaign['status']>('');
  const [list, reload] = useAsync(
    async (signal) => {
      const all: Campaign[] = [];
      const filter = { ...scope, ...(status ? { status } : {}), pageSize: 50 };
      for await (const c of client.campaigns(filter, { signal })) {
        all.push(c);
        if (all.length >= 200) break;
      }
      return all;
    },
    [workspaceId, status],
  );
  // A campaign starts at 00:00 UTC on its start date, which must be in the future: tomorrow at the earliest.
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const [name, setName] = useState('');
  const [objective, setObjective] = useState('');
  const [start, setStart] = useState(tomorrow);
  const [weeks, setWeeks] = useState(8);
  const { error, busy, run } = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      unwrap(
        await client.POST('/v1/campaigns', {
          body: {
            ...scope,
            name,
            ...(objective ? { objective } : {}),
            start_date: start,
            duration_weeks: weeks,
          },
        }),
      );
      setName('');
      setObjective('');
      reload();
    });
  };
  const cancel = (id: string) =>
    run(async () => {
      unwrap(
        await client.POST('/v1/campaigns/{campaign_id}/cancel', { params: { path: { campaign_id: id } } }),
      );
      reload();
    });

  return (
    <>
      <h1>Campaigns</h1>
      {!session.can('campaign.manage') && <RoleNote role={session.role} what="planning a campaign" />}
      <Section title="New campaign" hidden={!session.can('campaign.manage')}>
        <form class="controls" onSubmit={create}>
          <label>
            Name
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Objective
            <input maxLength={500} value={objective} onInput={(e) => setObjective(e.currentTarget.value)} />
          </label>
          <label>
            Start date
            <input
              type="date"
              required
              min={tomorrow}
              value={start}
              onInput={(e) => setStart(e.currentTarget.value)}
            />
          </label>
          <label>
            Weeks
            <input
              type="number"
              min={4}
              max={52}
              required
              value={weeks}
              onInput={(e) => setWeeks(Number(e.currentTarget.value))}
            />
          </label>
          <button type="submit" disabled={busy}>
            Create campaign
          </button>
        </form>
        {error !== null && <ErrorBox error={error} />}
      </Section>
      <p>
        <label>
          Show{' '}
          <select
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value as '' | Campaign['status'])}
          >
            <option value="">Draft, active and completed</option>
            <option value="draft">Draft</option>
            <option value="active">Active</option>
            <option value="completed">Completed</option>
            <option value="cancelled">Cancelled</option>
          </select>
        </label>
      </p>
      <Loaded data={list}>
        {(campaigns) =>
          campaigns.length === 0 ? (
            <p>No campaigns yet.</p>
          ) : (
            <ul class="stack" data-testid="campaigns">
              {campaigns.map((c) => (
                <li class="card" key={c.id}>
                  <h2>{c.name}</h2>
                  <p>
                    <span class={`pill ${c.status === 'cancelled' ? 'bad' : 'ok'}`}>{c.status}</span> from{' '}
                    {day(c.start_date)} · score {c.score_at_start ?? '—'} → {c.score_current ?? '—'}
                    {c.score_delta ? ` (${c.score_delta})` : ''}
                  </p>
                  <Timeline c={c} />
                  {(c.status === 'draft' || c.status === 'active') && session.can('campaign.manage') && (
                    <ConfirmButton
                      label={`Cancel ${c.name}`}
                      question={`Cancel ${c.name}? It stops tracking the score from then on and cannot be started again.`}
                      confirmLabel={`Yes, cancel ${c.name}`}
                      keepLabel="Keep the campaign"
                      onConfirm={() => cancel(c.id)}
                    />
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}
