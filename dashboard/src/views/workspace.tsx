import { PILLARS, unwrap } from '../api.ts';
import { Chart } from '../chart.tsx';
import type { ViewProps } from '../main.tsx';
import { Loaded, Recommendations, Section, TableHead, cap, useAsync, when } from '../ui.tsx';

export function pillarBars(pillars: Record<string, number>) {
  return {
    grid: { left: 90, right: 24, top: 10, bottom: 30 },
    xAxis: { type: 'value', min: 0, max: 100 },
    yAxis: { type: 'category', data: PILLARS.map(cap), inverse: true },
    tooltip: { trigger: 'axis' },
    series: [
      {
        name: 'Pillar score',
        type: 'bar',
        data: PILLARS.map((p) => pillars[p] ?? 0),
        label: { show: true, position: 'right', color: '#1f2937' },
      },
    ],
  };
}

export function WorkspaceView({ session, workspaceId }: ViewProps) {
  const { client } = session;
  const q = workspaceId ? { workspace_id: workspaceId } : {};
  const [score] = useAsync(
    async (signal) => {
      const [current, history] = await Promise.all([
        client.GET('/v1/score', { params: { query: { ...q, include_pillars: true } }, signal }).then(unwrap),
        client
          .GET('/v1/score/history', { params: { query: { ...q, granularity: 'weekly' } }, signal })
          .then(unwrap),
      ]);
      return { current, delta: history.delta };
    },
    [workspaceId],
  );
  const [platforms] = useAsync(
    (signal) => client.GET('/v1/platforms', { params: { query: q }, signal }).then(unwrap),
    [workspaceId],
  );
  // The latest completed audit's recommendations (a failed or running audit has none).
  const [audit] = useAsync(
    async (signal) => {
      const latest = unwrap(
        await client.GET('/v1/audits', {
          params: { query: { ...q, status: 'completed', limit: 1, offset: 0 } },
          signal,
        }),
      ).audits[0];
      if (!latest) return null;
      const result = unwrap(
        await client.GET('/v1/audit/{audit_id}', { params: { path: { audit_id: latest.audit_id } }, signal }),
      );
      return result.status === 'completed' ? result : null;
    },
    [workspaceId],
  );

  return (
    <>
      <h1>Workspace</h1>
      <div class="grid">
        <Section title="Brand Credit Score">
          <Loaded data={score}>
            {({ current, delta }) => (
              <>
                <p class="big" data-testid="composite">
                  {current.score.toFixed(1)}{' '}
                  <span class={`grade grade-${current.grade}`}>{current.grade}</span>
                </p>
                {current.stale ? (
                  <p class="banner" role="status" data-testid="stale">
                    Stale: this score stands on data up to {current.latest_data_day ?? 'an unknown day'}, and
                    no newer data has arrived since. Check the connections under{' '}
                    <a href="#/platforms">Platforms</a>.
                  </p>
                ) : null}
                <p>
                  Change: <strong data-testid="delta">{delta.score}</strong> over {delta.period}
                </p>
                <p class="muted" data-testid="score-basis">
                  {current.interval
                    ? `90% interval ${current.interval.low.toFixed(1)} to ${current.interval.high.toFixed(1)} · `
                    : ''}
                  data up to {current.latest_data_day ?? 'none yet'}
                </p>
                <p class="muted">
                  {current.tier} tier · formula {current.formula_version} · calculated{' '}
                  {when(current.calculated_at)}
                </p>
              </>
            )}
          </Loaded>
        </Section>
        <Section title="Five pillars">
          <Loaded data={score}>
            {({ current }) => (
              <Chart
                option={pillarBars(current.pillars ?? {})}
                label={`Pillar scores: ${PILLARS.map((p) => `${p} ${current.pillars?.[p] ?? 'n/a'}`).join(', ')}`}
                height={220}
                testId="pillars-chart"
              />
            )}
          </Loaded>
        </Section>
      </div>
      <Section title="Data freshness">
        <Loaded data={platforms}>
          {(p) =>
            p.platforms.length === 0 ? (
              <p>No platform is connected yet. Connect one under Platforms.</p>
            ) : (
              <table>
                <TableHead cols={['Platform', 'Status', 'Last sync', 'Next sync']} />
                <tbody>
                  {p.platforms.map((x) => (
                    <tr key={x.name}>
                      <th scope="row">{cap(x.name)}</th>
                      <td>{x.status}</td>
                      <td>{when(x.last_sync)}</td>
                      <td>{when(x.next_sync_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Loaded>
      </Section>
      <Section title="Latest recommendations">
        <Loaded data={audit}>
          {(a) =>
            !a ? (
              <p>
                Run an audit (under <a href="#/audits">Audits</a>) to get ranked recommendations.
              </p>
            ) : (
              <>
                <p class="muted">
                  From the audit of{' '}
                  <a href={`#/audits/${encodeURIComponent(a.audit_id)}`}>{when(a.completed_at)}</a>.
                </p>
                <Recommendations items={a.recommendations} testId="recommendations" />
              </>
            )
          }
        </Loaded>
      </Section>
    </>
  );
}
